package io.forgeflow.server.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/** {@code forgeflow runs list|get|cancel|requeue}. */
final class RunsCommand extends ClientCommand {

    RunsCommand(Terminal terminal) {
        super("runs", "list, inspect, cancel and requeue runs (list, get, cancel, requeue)", terminal);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        Subparsers actions = actions(command);
        Subparser list = action(actions, "list", "list runs, newest first (GET /api/runs)");
        list.addArgument("--job").metavar("JOB_ID").help("only the runs of this job");
        list.addArgument("--status").choices("pending", "running", "succeeded", "dead", "cancelled")
                .help("only runs in this status (dead: the dead-letter queue)");
        page(list);
        ids(action(actions, "get", "show runs with their output, error and attempts (GET /api/runs/{id})"), "run");
        ids(action(actions, "cancel", "cancel runs: pending at once, running ones are stopped by their worker"), "run");
        ids(action(actions, "requeue", "send dead or cancelled runs back to pending with a fresh attempt budget"), "run");
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        Details.JobNames names = new Details.JobNames(client);
        switch (ns.getString(ACTION)) {
            case "list" -> list(client.listRuns(ns.getString("job"), ns.getString("status"), ns.getInt("limit"),
                    ns.getString("cursor")), names, out, "runs list", ns.getString("status") == null ? "no runs"
                    : "no " + ns.getString("status") + " runs");
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

    static void changed(Output out, Run run, String action) {
        out.println("run " + run.id() + " is " + run.status()
                + ("requeue".equals(action) ? " (attempts " + run.attempt() + " / " + run.maxAttempts() + ")" : ""));
    }

    /** A page of runs as a table (or JSON), with the command that reads the next page. */
    /** The run's status, with what it waits for when it waits ({@code pending (waiting for handler x)}). */
    static String status(Run run) {
        return run.waitingFor() == null ? run.status() : run.status() + " (waiting for " + run.waitingFor() + ")";
    }

    static void list(Page<Run> page, Details.JobNames names, Output out, String command, String none) {
        if (out.json()) {
            out.json(page);
            return;
        }
        Table table = new Table("ID", "JOB", "STATUS", "ATTEMPT>", "SCHEDULED", "FINISHED", "WORKER", "ERROR");
        page.items().forEach(run -> table.row(run.id(), names.of(run.jobId()), status(run),
                run.attempt() + "/" + run.maxAttempts(), Text.time(run.scheduledFor()), Text.time(run.finishedAt()),
                run.workerId(), run.error()));
        if (table.isEmpty()) {
            out.println(none);
            return;
        }
        out.table(table);
        if (page.hasMore()) {
            out.println("(more: " + PROGRAM + " " + command + " --cursor " + page.nextCursor() + ")");
        }
    }
}
