package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Run;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.util.List;

/** {@code forgeflow dlq}: the dead-letter queue (runs that used up their attempts); {@code forgeflow dlq requeue ID...}. */
final class DlqCommand extends ClientCommand {

    DlqCommand(Terminal terminal, String program) {
        super("dlq", "the dead-letter queue: list dead runs, or 'dlq requeue ID...' to retry them", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        command.usage(program + " dlq [--job JOB_ID] [--limit N] [--cursor C] [--server URL] [--token TOKEN] "
                + "[--tenant NAME] [--json]\n"
                + "       " + program + " dlq requeue ID [ID ...] [--server URL] [--token TOKEN] [--tenant NAME] [--json]");
        command.addArgument(ACTION).nargs("?").choices("list", "requeue").setDefault("list")
                .help("list the dead runs, or requeue the given ones");
        command.addArgument("ids").metavar("ID").nargs("*").help("with requeue: the dead runs to requeue");
        command.addArgument("--job").metavar("JOB_ID").help("list: only the dead runs of this job");
        page(command);
        connectionOptions(command);
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        List<Object> ids = ns.getList("ids");
        if ("requeue".equals(ns.getString(ACTION))) {
            if (ids == null || ids.isEmpty()) {
                throw new UsageException("dlq requeue needs the id of at least one dead run (" + program + " dlq lists them)");
            }
            eachId(ns, out, client::requeueRun, (id, run) -> RunsCommand.changed(out, run, "requeue"));
            return;
        }
        if (ids != null && !ids.isEmpty()) {
            throw new UsageException("dlq takes no ids unless it requeues: " + program + " dlq requeue " + ids.get(0));
        }
        RunsCommand.list(client.listRuns(ns.getString("job"), Run.DEAD, ns.getInt("limit"), ns.getString("cursor")),
                new Details.JobNames(client), out, program + " dlq", "no dead runs");
    }
}
