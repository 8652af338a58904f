package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Queue;
import io.forgeflow.client.QueueUpdate;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code forgeflow queues [list]}, {@code queues get NAME}, {@code queues set NAME --max-running N --rate COUNT/SECONDS}
 * ({@code none} clears a limit), {@code queues pause NAME}, {@code queues resume NAME}. The action is optional (a bare
 * {@code queues} lists them), so it is a positional argument rather than a sub-command.
 */
final class QueuesCommand extends ClientCommand {
    static final List<String> ACTIONS = List.of("list", "get", "set", "pause", "resume");
    static final String NONE = "none";
    private static final Pattern RATE = Pattern.compile("(\\d{1,9})\\s*/\\s*(\\d{1,9})");

    QueuesCommand(Terminal terminal, String program) {
        super("queues", "named queues: list them, set their cluster-wide limits, pause and resume them "
                + "(list, get, set, pause, resume); a queue is a tenant's (--tenant)", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        command.description(getDescription() + ". Examples: queues; queues set reports --max-running 2 --rate 100/60; "
                + "queues set reports --rate none; queues pause reports");
        command.addArgument(ACTION).nargs("?").choices(ACTIONS.toArray()).setDefault("list").metavar("ACTION")
                .help("list (default), get, set, pause or resume");
        command.addArgument("name").nargs("?").metavar("NAME").help("the queue (get, set, pause, resume)");
        command.addArgument("--max-running").metavar("N")
                .help("set: at most N runs of the queue at once, on all nodes together (1-100000), or none");
        command.addArgument("--rate").metavar("COUNT/SECONDS")
                .help("set: at most COUNT starts in any SECONDS (a sliding window), e.g. 100/60, or none");
        connectionOptions(command);
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        String action = ns.getString(ACTION);
        String name = ns.getString("name");
        if (!"set".equals(action) && (ns.getString("max_running") != null || ns.getString("rate") != null)) {
            throw new UsageException("--max-running and --rate go with set: " + program
                    + " queues set NAME --max-running 2 --rate 100/60");
        }
        if ("list".equals(action)) {
            if (name != null) {
                throw new UsageException("queues list takes no name: to see one queue, " + program + " queues get "
                        + name);
            }
            list(client.queues(), out);
            return;
        }
        if (name == null) {
            throw new UsageException("queues " + action + " needs the queue's name, e.g. " + program + " queues "
                    + action + " reports");
        }
        switch (action) {
            case "get" -> show(out, client.queue(name), null);
            case "set" -> show(out, client.configureQueue(name, update(ns.getString("max_running"),
                    ns.getString("rate"))), "limits set");
            case "pause" -> show(out, client.pauseQueue(name), "paused: no run of it starts on any node until it is "
                    + "resumed");
            case "resume" -> show(out, client.resumeQueue(name), "resumed");
            default -> throw new UsageException("unknown action " + action);
        }
    }

    /** The update --max-running and --rate describe; a usage error when neither is given or one is malformed. */
    static QueueUpdate update(String maxRunning, String rate) {
        if (maxRunning == null && rate == null) {
            throw new UsageException("queues set changes nothing without --max-running N and/or --rate COUNT/SECONDS "
                    + "(none clears a limit)");
        }
        QueueUpdate update = QueueUpdate.create();
        if (maxRunning != null) {
            update.maxRunning(maxRunning(maxRunning));
        }
        if (rate != null) {
            int[] parsed = rate(rate);
            if (parsed == null) {
                update.clearRateLimit();
            } else {
                update.rateLimit(parsed[0], parsed[1]);
            }
        }
        return update;
    }

    /** --max-running: a whole number, or {@code none} (null: no limit). Ranges are the server's to check. */
    static Integer maxRunning(String text) {
        String t = text.trim();
        if (t.toLowerCase(Locale.ROOT).equals(NONE)) {
            return null;
        }
        try {
            return Integer.valueOf(t);
        } catch (NumberFormatException e) {
            throw new UsageException("--max-running '" + text + "' is not a whole number: give one such as 2, or none "
                    + "for no limit");
        }
    }

    /** --rate: {@code COUNT/SECONDS} as {count, seconds}, or {@code none} (null: no rate limit). */
    static int[] rate(String text) {
        return rate(text, "--rate");
    }

    /** A rate option ({@code option}: its name in the message) as {@link #rate(String)} reads it. */
    static int[] rate(String text, String option) {
        String t = text.trim();
        if (t.toLowerCase(Locale.ROOT).equals(NONE)) {
            return null;
        }
        Matcher m = RATE.matcher(t);
        if (!m.matches()) {
            throw new UsageException(option + " '" + text + "' is not COUNT/SECONDS: write it like 100/60 (at most 100 "
                    + "starts in any 60 seconds), or none for no rate limit");
        }
        return new int[]{Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
    }

    static String rateText(Queue.RateLimit rate) {
        return rate == null ? "-" : rate.count() + "/" + rate.perSeconds() + "s";
    }

    static String lag(double seconds) {
        return Text.duration(Duration.ofMillis(Math.round(seconds * 1000)));
    }

    private static void list(List<Queue> queues, Output out) {
        if (out.json()) {
            java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
            body.put("items", queues);
            body.put("queues", queues); // the API's deprecated alias, for scripts written before items
            out.json(body);
            return;
        }
        if (queues.isEmpty()) {
            out.println("no queues");
            return;
        }
        // a TENANT column only when a queue is not the default tenant's: one tenant's output stays as it was
        boolean tenants = queues.stream().anyMatch(q -> Details.otherTenant(q.tenant()));
        Table table = tenants
                ? new Table("TENANT", "QUEUE", "STATE", "RUNNING>", "MAX RUNNING>", "RATE", "PENDING>", "DUE>", "LAG")
                : new Table("QUEUE", "STATE", "RUNNING>", "MAX RUNNING>", "RATE", "PENDING>", "DUE>", "LAG");
        queues.forEach(q -> {
            List<Object> cells = new java.util.ArrayList<>(List.of(q.name(), q.paused() ? "paused" : "active",
                    q.running(), q.maxRunning() == null ? "-" : q.maxRunning(), rateText(q.rateLimit()), q.pending(),
                    q.due(), lag(q.lagSeconds())));
            if (tenants) {
                cells.add(0, q.tenant() == null ? "default" : q.tenant());
            }
            table.row(cells.toArray());
        });
        out.table(table);
    }

    private static void show(Output out, Queue q, String what) {
        if (out.json()) {
            out.json(q);
            return;
        }
        boolean other = Details.otherTenant(q.tenant());
        if (what != null) {
            out.println("queue " + Text.line(q.name()) + (other ? " of tenant " + Text.line(q.tenant()) : "") + " "
                    + what);
        }
        Details details = new Details().field("queue", q.name());
        if (other) {
            details.field("tenant", q.tenant());
        }
        details
                .field("state", q.paused() ? "paused" : "active")
                .field("max running", q.maxRunning() == null ? "none" : q.maxRunning())
                .field("rate limit", q.rateLimit() == null ? "none" : q.rateLimit().count() + " starts per "
                        + q.rateLimit().perSeconds() + "s (" + q.startsInWindow() + " in the current window)")
                .field("running", q.running())
                .field("pending", q.pending() + " (" + q.due() + " due)")
                .field("lag", lag(q.lagSeconds()))
                .print(out);
    }
}
