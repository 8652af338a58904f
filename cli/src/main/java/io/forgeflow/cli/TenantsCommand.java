package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Tenant;
import io.forgeflow.client.TenantUpdate;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.util.List;

/**
 * {@code forgeflow tenants [list]}, {@code tenants show NAME} ({@code get} as for queues), {@code tenants set NAME
 * --weight N --max-running N --rate-limit COUNT/SECONDS} ({@code none} clears a limit). Cluster-wide: it needs a
 * token bound to no tenant, and {@code set} needs admin. The action is optional (a bare {@code tenants} lists them),
 * so it is a positional argument rather than a sub-command, as in {@link QueuesCommand}.
 */
final class TenantsCommand extends ClientCommand {
    static final List<String> ACTIONS = List.of("list", "show", "get", "set");

    TenantsCommand(Terminal terminal, String program) {
        super("tenants", "tenants: list them, set their weights in the fair share and their cluster-wide limits "
                + "(list, show, set)", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        command.description(getDescription() + ". Examples: tenants; tenants show acme; tenants set acme --weight 3 "
                + "--max-running 20 --rate-limit 100/60; tenants set acme --rate-limit none");
        command.addArgument(ACTION).nargs("?").choices(ACTIONS.toArray()).setDefault("list").metavar("ACTION")
                .help("list (default), show (or get) or set");
        command.addArgument("name").nargs("?").metavar("NAME").help("the tenant (show, set)");
        command.addArgument("--weight").metavar("N")
                .help("set: the tenant's weight in the fair share (1-1000; default 1): while both have due runs, a "
                        + "tenant of weight 3 gets three starts for each start of a tenant of weight 1");
        command.addArgument("--max-running").metavar("N")
                .help("set: at most N runs of the tenant at once, on all nodes together (1-100000), or none");
        command.addArgument("--rate-limit").metavar("COUNT/SECONDS")
                .help("set: at most COUNT starts in any SECONDS (a sliding window), e.g. 100/60, or none");
        connectionOptions(command);
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        String action = ns.getString(ACTION);
        String name = ns.getString("name");
        String weight = ns.getString("weight");
        String maxRunning = ns.getString("max_running");
        String rate = ns.getString("rate_limit");
        if (!"set".equals(action) && (weight != null || maxRunning != null || rate != null)) {
            throw new UsageException("--weight, --max-running and --rate-limit go with set: " + program
                    + " tenants set NAME --weight 3 --max-running 20 --rate-limit 100/60");
        }
        if ("list".equals(action)) {
            if (name != null) {
                throw new UsageException("tenants list takes no name: to see one tenant, " + program
                        + " tenants show " + name);
            }
            list(client.tenants(), out);
            return;
        }
        if (name == null) {
            throw new UsageException("tenants " + action + " needs the tenant's name, e.g. " + program + " tenants "
                    + action + " acme");
        }
        switch (action) {
            case "show", "get" -> show(out, client.tenant(name), null);
            case "set" -> show(out, client.configureTenant(name, update(weight, maxRunning, rate)), "settings set");
            default -> throw new UsageException("unknown action " + action);
        }
    }

    /** The update the options describe; a usage error when none is given or one is malformed. */
    static TenantUpdate update(String weight, String maxRunning, String rate) {
        if (weight == null && maxRunning == null && rate == null) {
            throw new UsageException("tenants set changes nothing without --weight N, --max-running N and/or "
                    + "--rate-limit COUNT/SECONDS (none clears a limit)");
        }
        TenantUpdate update = TenantUpdate.create();
        if (weight != null) {
            update.weight(weight(weight));
        }
        if (maxRunning != null) {
            update.maxRunning(QueuesCommand.maxRunning(maxRunning));
        }
        if (rate != null) {
            int[] parsed = QueuesCommand.rate(rate, "--rate-limit");
            if (parsed == null) {
                update.clearRateLimit();
            } else {
                update.rateLimit(parsed[0], parsed[1]);
            }
        }
        return update;
    }

    /** --weight: a whole number. Its range (1-1000) is the server's to check. */
    static int weight(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("--weight '" + text + "' is not a whole number: give one from 1 to 1000, such as "
                    + "3 (1 is the default)");
        }
    }

    static String rateText(Tenant.RateLimit rate) {
        return rate == null ? "-" : rate.count() + "/" + rate.perSeconds() + "s";
    }

    private static void list(List<Tenant> tenants, Output out) {
        if (out.json()) {
            out.json(java.util.Map.of("items", tenants));
            return;
        }
        if (tenants.isEmpty()) {
            out.println("no tenants");
            return;
        }
        Table table = new Table("NAME", "WEIGHT>", "MAX_RUNNING>", "RATE_LIMIT", "PENDING>", "RUNNING>");
        tenants.forEach(t -> table.row(t.name(), t.weight(), t.maxRunning() == null ? "-" : t.maxRunning(),
                rateText(t.rateLimit()), t.pending(), t.running()));
        out.table(table);
    }

    private static void show(Output out, Tenant t, String what) {
        if (out.json()) {
            out.json(t);
            return;
        }
        if (what != null) {
            out.println("tenant " + Text.line(t.name()) + " " + what);
        }
        new Details()
                .field("tenant", t.name())
                .field("weight", t.weight())
                .field("max running", t.maxRunning() == null ? "none" : t.maxRunning())
                .field("rate limit", t.rateLimit() == null ? "none" : t.rateLimit().count() + " starts per "
                        + t.rateLimit().perSeconds() + "s (" + t.startsInWindow() + " in the current window)")
                .field("running", t.running())
                .field("pending", t.pending())
                .print(out);
    }
}
