package io.forgeflow.cli;

import net.sourceforge.argparse4j.ArgumentParsers;
import net.sourceforge.argparse4j.helper.HelpScreenException;
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

/**
 * The command-line client's own program, {@code java -jar forgeflow-cli.jar ARGS}: the commands of
 * {@link ClientCommands} and nothing of the node (the node's jar runs the same commands beside {@code server}).
 */
public final class ForgeFlowCli {
    static final String PROGRAM = "java -jar forgeflow-cli.jar";
    /** Where the parser puts the chosen command's name ("command": the name the node's parser uses too). */
    private static final String COMMAND = "command";

    private ForgeFlowCli() {
    }

    public static void main(String[] args) {
        System.exit(run(Terminal.system(), args));
    }

    /** Runs one command line with the given streams and environment; returns its exit code ({@link ExitCodes}). */
    public static int run(Terminal terminal, String... args) {
        try {
            return dispatch(terminal, args);
        } finally {
            terminal.out().flush();
            terminal.err().flush();
        }
    }

    private static int dispatch(Terminal terminal, String... args) {
        if (args.length == 1 && (args[0].equals("-v") || args[0].equals("--version"))) {
            terminal.out().println(version());
            return ExitCodes.OK;
        }
        Map<String, ClientCommand> commands = new LinkedHashMap<>();
        ArgumentParser parser = parser(terminal, commands);
        Namespace namespace;
        try {
            namespace = parser.parseArgs(args);
        } catch (HelpScreenException e) {
            return ExitCodes.OK;
        } catch (ArgumentParserException e) {
            PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(terminal.err(), StandardCharsets.UTF_8), true);
            err.println("forgeflow: " + e.getMessage());
            e.getParser().printUsage(err);
            err.println("(" + PROGRAM + " [COMMAND [ACTION]] --help shows the usage)");
            return ExitCodes.USAGE;
        }
        ClientCommand command = commands.get(namespace.getString(COMMAND));
        try {
            command.run(namespace);
            return ExitCodes.OK;
        } catch (RuntimeException e) {
            command.onError(namespace, e);
            return ExitCodes.of(e);
        }
    }

    private static ArgumentParser parser(Terminal terminal, Map<String, ClientCommand> commands) {
        ArgumentParser parser = ArgumentParsers.newFor(PROGRAM).addHelp(false).build()
                .description("ForgeFlow's command-line client: talks to a node's REST API (never to its database). "
                        + "-v prints the version.");
        parser.addArgument("-h", "--help").action(new ClientCommand.HelpAction(terminal))
                .help("show this help and exit").setDefault(net.sourceforge.argparse4j.impl.Arguments.SUPPRESS);
        Subparsers subparsers = parser.addSubparsers().title("commands").metavar("COMMAND");
        List<ClientCommand> all = ClientCommands.all(terminal, PROGRAM);
        for (ClientCommand command : all) {
            commands.put(command.getName(), command);
            Subparser subparser = subparsers.addParser(command.getName(), false)
                    .help(command.getDescription()).description(command.getDescription());
            command.configure(subparser);
            command.addHelp(subparser);
            subparser.setDefault(COMMAND, command.getName());
        }
        return parser;
    }

    /** This jar's version (its manifest's Implementation-Version), or a note when run from classes. */
    static String version() {
        String version = ForgeFlowCli.class.getPackage().getImplementationVersion();
        return "forgeflow-cli " + (version == null ? "(version unknown: not run from its jar)" : version);
    }
}
