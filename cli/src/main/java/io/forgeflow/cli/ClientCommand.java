package io.forgeflow.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.ForgeFlowException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import net.sourceforge.argparse4j.helper.HelpScreenException;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Argument;
import net.sourceforge.argparse4j.inf.ArgumentAction;
import net.sourceforge.argparse4j.inf.ArgumentParser;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A command that talks to a node over REST: {@code --server}, {@code --token}, {@code --tenant} and {@code --json} on
 * every action,
 * errors as the API worded them (no stack traces), exit codes from {@link ExitCodes}. A parser runs it: this module's
 * {@link ForgeFlowCli}, or the node's jar, which registers the same commands with its own.
 */
public abstract class ClientCommand {
    static final String DEFAULT_SERVER = "http://127.0.0.1:8080";
    static final String SERVER_VARIABLE = "FORGEFLOW_SERVER";
    /** The API token's variable ({@code FORGEFLOW_TOKEN}, or {@code FORGEFLOW_TOKEN_FILE} naming a file holding it). */
    public static final String TOKEN_VARIABLE = "FORGEFLOW_TOKEN";
    /** The tenant every request acts in, when {@code --tenant} gives none. */
    static final String TENANT_VARIABLE = "FORGEFLOW_TENANT";
    static final String ACTION = "action";

    private static final ObjectMapper JSON = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private final String name;
    private final String description;
    protected final Terminal terminal;
    /** How the user started this program ({@code java -jar forgeflow-cli.jar}), for the hints it prints. */
    protected final String program;

    ClientCommand(String name, String description, Terminal terminal, String program) {
        this.name = name;
        this.description = description;
        this.terminal = terminal;
        this.program = program;
    }

    public final String getName() {
        return name;
    }

    public final String getDescription() {
        return description;
    }

    /** Adds the command's actions and options to its parser. */
    public abstract void configure(Subparser command);

    /** Runs the parsed command against the client; prints through out. */
    abstract void execute(Namespace namespace, ForgeFlowClient client, Output out);

    /** Runs the parsed command line; a failure is thrown, for {@link #onError} and {@link ExitCodes#of}. */
    public final void run(Namespace namespace) {
        Output out = new Output(terminal, Boolean.TRUE.equals(namespace.getBoolean("json")));
        try (ForgeFlowClient client = connect(namespace)) {
            execute(namespace, client, out);
        }
        terminal.out().flush();
    }

    /** Reports a failure of {@link #run} on stderr, as the API worded it. */
    public void onError(Namespace namespace, Throwable e) {
        if (e instanceof ReportedFailure) {
            return;
        }
        boolean json = namespace != null && Boolean.TRUE.equals(namespace.getBoolean("json"));
        new Output(terminal, json).error(e);
        if (e instanceof UsageException) {
            terminal.err().println("(" + program + " " + getName() + " --help shows the usage)");
        }
    }

    private ForgeFlowClient connect(Namespace namespace) {
        String server = first(namespace.getString("server"), terminal.variable(SERVER_VARIABLE), DEFAULT_SERVER);
        String token = first(namespace.getString("token"), terminal.variable(TOKEN_VARIABLE), null);
        String tenant = first(namespace.getString("tenant"), terminal.variable(TENANT_VARIABLE), null);
        ForgeFlowClient.Builder builder;
        try {
            builder = ForgeFlowClient.builder(server).token(token);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--server: " + e.getMessage());
        }
        try {
            builder.tenant(tenant);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--tenant: " + e.getMessage());
        }
        try {
            Integer retries = namespace.getInt("retries");
            if (retries != null) {
                if (retries < 0) {
                    throw new UsageException("--retries: must be at least 0, was " + retries);
                }
                builder.retries(retries);
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("--server: " + e.getMessage());
        }
    }

    private static String first(String a, String b, String c) {
        return a != null && !a.isBlank() ? a.trim() : b != null ? b : c;
    }

    // ---------------------------------------------------------------- parser building

    /** The actions of a command ({@code jobs submit}, {@code jobs list} ...), chosen into {@value #ACTION}. */
    Subparsers actions(Subparser command) {
        return command.addSubparsers().title("actions").dest(ACTION).metavar("ACTION");
    }

    /** One action, with -h, --server, --token, --tenant, --retries and --json. */
    Subparser action(Subparsers actions, String name, String help) {
        Subparser action = actions.addParser(name, false).help(help).description(help);
        addHelp(action);
        connectionOptions(action);
        return action;
    }

    void addHelp(ArgumentParser parser) {
        parser.addArgument("-h", "--help").action(new HelpAction(terminal)).help("show this help and exit")
                .setDefault(Arguments.SUPPRESS);
    }

    /** --server, --token, --tenant, --retries and --json, listed after the action's own options. */
    static void connectionOptions(ArgumentParser parser) {
        net.sourceforge.argparse4j.inf.ArgumentGroup common = parser.addArgumentGroup("common options");
        common.addArgument("--server").metavar("URL")
                .help("the node, e.g. http://127.0.0.1:8080 (default: $" + SERVER_VARIABLE + ", else " + DEFAULT_SERVER + ")");
        common.addArgument("--token").metavar("TOKEN")
                .help("API token, sent as Authorization: Bearer (default: $" + TOKEN_VARIABLE
                        + ", which keeps it out of the process list)");
        common.addArgument("--tenant").metavar("NAME")
                .help("act in tenant NAME, sent as X-ForgeFlow-Tenant: submissions go to it, lists and ids show only "
                        + "its jobs, runs and batches (default: $" + TENANT_VARIABLE + ", else none: a cluster-wide "
                        + "token sees every tenant and submits to default; a tenant-bound token always acts in its own)");
        common.addArgument("--retries").metavar("N").type(Integer.class)
                .help("how often a read, or a submission with --idempotency-key, is sent again when the node answers "
                        + "503 (its database is away) or the connection fails, with backoff (default 5; 0: never); "
                        + "other writes are never repeated");
        common.addArgument("--json").action(Arguments.storeTrue()).setDefault(Arguments.SUPPRESS)
                .help("print the API's JSON instead of tables (errors too, on stderr)");
    }

    static void ids(ArgumentParser parser, String what) {
        parser.addArgument("ids").metavar("ID").nargs("+").help(what + " id(s)");
    }

    static void page(ArgumentParser parser) {
        parser.addArgument("--limit").type(Integer.class).metavar("N").help("at most this many, 1-500 (the server's default: 50)");
        parser.addArgument("--cursor").metavar("CURSOR").help("the next_cursor of the page before");
    }

    // ---------------------------------------------------------------- actions on several ids

    /**
     * Applies action to every id in turn, printing each result; a failure is reported and the next id tried. Fails
     * with the exit code of the first failure.
     */
    <T> void eachId(Namespace namespace, Output out, Function<String, T> action, java.util.function.BiConsumer<String, T> print) {
        List<String> ids = namespace.getList("ids");
        int firstFailure = ExitCodes.OK;
        for (String id : ids) {
            try {
                T result = action.apply(id);
                if (out.json()) {
                    out.json(result);
                } else {
                    print.accept(id, result);
                }
            } catch (ForgeFlowException e) {
                out.error(e, id);
                if (firstFailure == ExitCodes.OK) {
                    firstFailure = ExitCodes.of(e);
                }
                if (e instanceof ForgeFlowUnavailableException) {
                    break; // the rest would fail the same way
                }
            }
        }
        if (firstFailure != ExitCodes.OK) {
            throw new ReportedFailure(firstFailure);
        }
    }

    // ---------------------------------------------------------------- output

    /** Tables or JSON on stdout; errors on stderr. */
    static final class Output {
        private final Terminal terminal;
        private final boolean json;

        Output(Terminal terminal, boolean json) {
            this.terminal = terminal;
            this.json = json;
        }

        boolean json() {
            return json;
        }

        void json(Object value) {
            terminal.out().println(write(value));
        }

        /** {@code value} as JSON with one more field at its end (e.g. a job and {@code debounced_into}). */
        void json(Object value, String field, Object extra) {
            com.fasterxml.jackson.databind.node.ObjectNode tree = JSON.valueToTree(value);
            tree.set(field, JSON.valueToTree(extra));
            json(tree);
        }

        void println(String line) {
            terminal.out().println(line);
        }

        void table(Table table) {
            table.print(terminal.out());
        }

        void error(Throwable e) {
            error(e, null);
        }

        /** The API's error as is: its text, its field, its status; in JSON mode the same as an object. */
        void error(Throwable e, String id) {
            if (json) {
                Map<String, Object> body = new LinkedHashMap<>();
                if (id != null) {
                    body.put("id", id);
                }
                if (e instanceof ForgeFlowApiException api) {
                    body.put("status", api.status());
                    body.put("error", api.error());
                    body.put("field", api.field());
                } else {
                    body.put("status", null);
                    body.put("error", message(e));
                    body.put("field", null);
                }
                body.put("exit_code", ExitCodes.of(e));
                terminal.err().println(compact(body));
                return;
            }
            String prefix = id == null ? "forgeflow: " : "forgeflow: " + id + ": ";
            terminal.err().println(prefix + Text.safe(message(e)));
        }

        private static String message(Throwable e) {
            if (e instanceof ForgeFlowApiException api) {
                return api.error() + (api.field() == null ? "" : " (field: " + api.field() + ")")
                        + " [HTTP " + api.status() + "]";
            }
            if (e instanceof ForgeFlowUnavailableException) {
                return e.getMessage() + "; is a node running there? Point --server or $" + SERVER_VARIABLE + " at one";
            }
            if (e instanceof UsageException) {
                return e.getMessage();
            }
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }

        private static String compact(Object value) {
            try {
                return JSON.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
            }
        }

        private static String write(Object value) {
            try {
                return JSON.writeValueAsString(value);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
            }
        }
    }

    /** -h/--help that prints to the terminal (argparse4j's own prints to System.out). */
    static final class HelpAction implements ArgumentAction {
        private final Terminal terminal;

        HelpAction(Terminal terminal) {
            this.terminal = terminal;
        }

        @Override
        public void run(ArgumentParser parser, Argument arg, Map<String, Object> attrs, String flag, Object value)
                throws ArgumentParserException {
            PrintWriter writer = new PrintWriter(new java.io.OutputStreamWriter(terminal.out(), StandardCharsets.UTF_8), true);
            parser.printHelp(writer);
            writer.flush();
            throw new HelpScreenException(parser);
        }

        @Override
        public void onAttach(Argument arg) {
        }

        @Override
        public boolean consumeArgument() {
            return false;
        }
    }
}
