package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.ScheduledFire;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * {@code forgeflow schedules preview 'EXPR' [--timezone ZONE] [--count N] [--after TIME]}: the next fire times of a
 * cron expression as the scheduler computes them, with a note where daylight saving moves or merges one.
 */
final class SchedulesCommand extends ClientCommand {
    static final List<String> ACTIONS = List.of("preview");
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss xxx");

    SchedulesCommand(Terminal terminal, String program) {
        super("schedules", "cron schedules: preview the next fire times of an expression in a time zone", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        command.description(getDescription() + ". Example: schedules preview '30 2 * * *' --timezone America/New_York "
                + "--count 5");
        command.addArgument(ACTION).choices(ACTIONS.toArray()).metavar("ACTION").help("preview");
        command.addArgument("cron_expr").metavar("EXPR").nargs("?")
                .help("the cron expression, quoted, e.g. '0 0 L * *' (or --job)");
        command.addArgument("--job").metavar("JOB_ID")
                .help("preview this recurring job's own schedule instead: its window, remaining max_runs and jitter");
        command.addArgument("--timezone").metavar("ZONE").help("an IANA time zone such as Europe/Berlin (default UTC)");
        command.addArgument("--count").type(Integer.class).metavar("N").help("how many fire times, 1-100 (default 10)");
        command.addArgument("--after").metavar("TIME")
                .help("fire times after this RFC 3339 time, e.g. 2026-03-01T00:00:00Z (default now)");
        connectionOptions(command);
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        String job = ns.getString("job");
        if ((job == null) == (ns.getString("cron_expr") == null)) {
            throw new UsageException("give a cron expression or --job JOB_ID, one of them");
        }
        if (job != null && ns.getString("timezone") != null) {
            throw new UsageException("--timezone comes from the job with --job: leave it out");
        }
        List<ScheduledFire> fires = job != null
                ? client.previewJobSchedule(job, after(ns.getString("after")), ns.getInt("count"))
                : client.previewSchedule(ns.getString("cron_expr"), ns.getString("timezone"),
                after(ns.getString("after")), ns.getInt("count"));
        if (out.json()) {
            out.json(Map.of("items", fires));
            return;
        }
        if (fires.isEmpty()) {
            out.println("the expression does not fire again");
            return;
        }
        boolean jittered = fires.stream().anyMatch(f -> f.jitterSeconds() != 0);
        Table table = jittered ? new Table("AT (UTC)", "LOCAL", "TICK (UTC)", "JITTER", "NOTE")
                : new Table("AT (UTC)", "LOCAL", "NOTE");
        fires.forEach(f -> {
            if (jittered) {
                table.row(Text.time(f.at()), LOCAL.format(f.local()), Text.time(f.tick()), "+" + f.jitterSeconds() + "s",
                        f.note() == null ? "" : f.note());
            } else {
                table.row(Text.time(f.at()), LOCAL.format(f.local()), f.note() == null ? "" : f.note());
            }
        });
        out.table(table);
    }

    static Instant after(String text) {
        if (text == null) {
            return null;
        }
        try {
            return java.time.OffsetDateTime.parse(text).toInstant();
        } catch (java.time.DateTimeException e) {
            throw new UsageException("--after '" + text + "' is not a time: write it like 2026-03-01T00:00:00Z");
        }
    }
}
