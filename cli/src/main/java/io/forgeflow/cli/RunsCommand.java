package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/** {@code forgeflow runs list|get|cancel|requeue}. */
final class RunsCommand extends ClientCommand {

    RunsCommand(Terminal terminal, String program) {
        super("runs", "list, inspect, cancel and requeue runs (list, get, cancel, requeue)", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        Subparsers actions = actions(command);
        Subparser list = action(actions, "list", "list runs, newest first (GET /api/runs)");
        list.addArgument("--job").metavar("JOB_ID").help("only the runs of this job");
        list.addArgument("--status").choices("waiting", "pending", "running", "succeeded", "dead", "cancelled")
                .help("only runs in this status (waiting: for their job's parents; dead: the dead-letter queue)");
        list.addArgument("--queue").metavar("QUEUE").help("only runs of this queue");
        list.addArgument("--label").action(net.sourceforge.argparse4j.impl.Arguments.append()).metavar("KEY=VALUE")
                .help("only runs with this label (their job's); repeatable, all must match");
        list.addArgument("--scheduled-after").metavar("TIME").help("only runs due after TIME: RFC 3339 "
                + "(2026-12-01T09:30:00Z) or a time ago with '=' (--scheduled-after=-2h; s, m, h, d)");
        list.addArgument("--scheduled-before").metavar("TIME").help("only runs due before TIME (give --scheduled-after "
                + "too for a narrow window on a long history)");
        list.addArgument("--finished-after").metavar("TIME").help("only runs that finished after TIME, e.g. "
                + "--finished-after=-1h");
        page(list);
        ids(action(actions, "get", "show runs with their output, error and attempts (GET /api/runs/{id})"), "run");
        ids(action(actions, "cancel", "cancel runs: pending at once, running ones are stopped by their worker"), "run");
        ids(action(actions, "requeue", "send dead or cancelled runs back to pending with a fresh attempt budget"), "run");
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        Details.JobNames names = new Details.JobNames(client);
        switch (ns.getString(ACTION)) {
            case "list" -> list(client.listRuns(filter(ns), ns.getInt("limit"), ns.getString("cursor")), names, out,
                    program + " runs list", ns.getString("status") == null ? "no runs" : "no " + ns.getString("status") + " runs");
            case "get" -> eachId(ns, out, client::getRun, (id, run) -> {
                Details.run(out, run, names.of(run.jobId()));
                if (ns.getList("ids").size() > 1) {
                    out.println("");
                }
            });
            case "cancel" -> eachId(ns, out, client::cancelRun, (id, run) -> changed(out, run, "cancel"));
            case "requeue" -> eachId(ns, out, client::requeueRun, (id, run) -> changed(out, run, "requeue"));
            default -> throw new UsageException("unknown action " + ns.getString(ACTION));
        }
    }

    private static io.forgeflow.client.RunFilter filter(Namespace ns) {
        java.time.Instant now = java.time.Instant.now();
        io.forgeflow.client.RunFilter filter = io.forgeflow.client.RunFilter.create().jobId(ns.getString("job"))
                .status(ns.getString("status")).queue(ns.getString("queue"))
                .scheduledAfter(time("--scheduled-after", ns.getString("scheduled_after"), now))
                .scheduledBefore(time("--scheduled-before", ns.getString("scheduled_before"), now))
                .finishedAfter(time("--finished-after", ns.getString("finished_after"), now));
        JobsCommand.labels(ns.getList("label")).forEach(filter::label);
        return filter;
    }

    private static final java.util.regex.Pattern AGO = java.util.regex.Pattern.compile("-(\\d{1,9})([smhd])");

    /** An RFC 3339 time, or -N followed by s, m, h or d: that long before now; null when not given. */
    static java.time.Instant time(String option, String text, java.time.Instant now) {
        if (text == null) {
            return null;
        }
        java.util.regex.Matcher ago = AGO.matcher(text.trim().toLowerCase(java.util.Locale.ROOT));
        if (ago.matches()) {
            long n = Long.parseLong(ago.group(1));
            return now.minus(switch (ago.group(2)) {
                case "s" -> java.time.Duration.ofSeconds(n);
                case "m" -> java.time.Duration.ofMinutes(n);
                case "h" -> java.time.Duration.ofHours(n);
                default -> java.time.Duration.ofDays(n);
            });
        }
        try {
            return java.time.OffsetDateTime.parse(text.trim()).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            throw new UsageException(option + " '" + text + "' is not a time: write it like 2026-12-01T09:30:00Z, "
                    + "or -2h for two hours ago");
        }
    }

    static void changed(Output out, Run run, String action) {
        out.println("run " + run.id() + " is " + run.status()
                + ("requeue".equals(action) ? " (attempts " + run.attempt() + " / " + run.maxAttempts() + ")" : ""));
    }

    /** A page of runs as a table (or JSON), with the command that reads the next page. */
    /** The run's status, with what it waits for when it waits ({@code pending (waiting for handler x)}). */
    static String status(Run run) {
        return run.waitingFor() == null ? run.status() : run.status() + " (waiting for " + run.waitingFor() + ")";
    }

    /** @param command the command line that lists these runs, for the hint to the next page */
    static void list(Page<Run> page, Details.JobNames names, Output out, String command, String none) {
        if (out.json()) {
            out.json(page);
            return;
        }
        // a TENANT column only when a run is not in the default tenant: one tenant's output stays as it was
        boolean tenants = page.items().stream().anyMatch(run -> Details.otherTenant(run.tenant()));
        Table table = tenants
                ? new Table("ID", "TENANT", "JOB", "STATUS", "ATTEMPT>", "SCHEDULED", "FINISHED", "WORKER", "ERROR")
                : new Table("ID", "JOB", "STATUS", "ATTEMPT>", "SCHEDULED", "FINISHED", "WORKER", "ERROR");
        page.items().forEach(run -> {
            if (tenants) {
                table.row(run.id(), run.tenant(), names.of(run.jobId()), status(run),
                        run.attempt() + "/" + run.maxAttempts(), Text.time(run.scheduledFor()),
                        Text.time(run.finishedAt()), run.workerId(), run.error());
            } else {
                table.row(run.id(), names.of(run.jobId()), status(run), run.attempt() + "/" + run.maxAttempts(),
                        Text.time(run.scheduledFor()), Text.time(run.finishedAt()), run.workerId(), run.error());
            }
        });
        if (table.isEmpty()) {
            out.println(none);
            return;
        }
        out.table(table);
        if (page.hasMore()) {
            out.println("(more: " + command + " --cursor " + page.nextCursor() + ")");
        }
    }
}
