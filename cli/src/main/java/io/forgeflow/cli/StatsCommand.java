package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Stats;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code forgeflow stats}: runs by status, and the queue lag when {@code /metrics} answers this token. */
final class StatsCommand extends ClientCommand {
    private static final Pattern LAG = Pattern.compile("(?m)^forgeflow_queue_lag_seconds(?:\\{[^}]*})?\\s+(\\S+)");

    StatsCommand(Terminal terminal, String program) {
        super("stats", "how many runs are in each status, and the queue lag", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        connectionOptions(command);
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        Stats stats = client.stats();
        Double lag = lag(client);
        if (out.json()) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("waiting", stats.waiting());
            body.put("pending", stats.pending());
            body.put("running", stats.running());
            body.put("succeeded", stats.succeeded());
            body.put("dead", stats.dead());
            body.put("cancelled", stats.cancelled());
            body.put("queue_lag_seconds", lag);
            out.json(body);
            return;
        }
        Table table = new Table("STATUS", "RUNS>");
        table.row("waiting", stats.waiting()).row("pending", stats.pending()).row("running", stats.running()).row("succeeded", stats.succeeded())
                .row("dead", stats.dead()).row("cancelled", stats.cancelled()).row("total", stats.total());
        out.table(table);
        out.println(lag == null ? "queue lag: unknown (/metrics did not answer this token)"
                : "queue lag: " + Text.duration(java.time.Duration.ofMillis(Math.round(lag * 1000)))
                + " (the oldest due pending run's wait)");
    }

    /** forgeflow_queue_lag_seconds from /metrics, or null when it cannot be read (its own token, an old node). */
    private static Double lag(ForgeFlowClient client) {
        try {
            Matcher m = LAG.matcher(client.metrics());
            return m.find() ? Double.valueOf(m.group(1)) : null;
        } catch (ForgeFlowApiException | NumberFormatException e) {
            return null;
        }
    }
}
