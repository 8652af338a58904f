package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Node;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.util.List;

/** {@code forgeflow nodes}: the cluster's live nodes and the scheduler leader. */
final class NodesCommand extends ClientCommand {

    NodesCommand(Terminal terminal, String program) {
        super("nodes", "the cluster's nodes: roles, running runs, last heartbeat, the scheduler leader, wake-ups, "
                + "leadership and database connections", terminal, program);
    }

    @Override
    public void configure(Subparser command) {
        command.help(getDescription());
        connectionOptions(command);
    }

    @Override
    void execute(Namespace ns, ForgeFlowClient client, Output out) {
        List<Node> nodes = client.nodes();
        if (out.json()) {
            out.json(java.util.Map.of("items", nodes));
            return;
        }
        if (nodes.isEmpty()) {
            out.println("no live nodes");
            return;
        }
        Table table = new Table("WORKER", "ROLES", "VERSION", "RUNNING>", "LAST SEEN", "LEADER", "WAKE-UPS",
                "LEADERSHIP", "CONNECTIONS");
        nodes.forEach(n -> table.row(n.workerId(), String.join(",", n.roles()), n.version(), n.running(),
                Text.time(n.lastSeenAt()), leader(n), n.wakeUps(), n.leadership(), connections(n.connections())));
        out.table(table);
    }

    /** "leader", with the lease's term when it leads by lease. */
    private static String leader(Node n) {
        if (!n.leader()) {
            return "";
        }
        return n.leaderTerm() == null ? "leader" : "leader (term " + n.leaderTerm() + ")";
    }

    /** The pool's borrowed and total connections, and the session connections; null (shown "-") when not said. */
    static String connections(Node.Connections c) {
        return c == null ? null : "pool " + c.poolInUse() + "/" + c.poolMax() + ", sessions " + c.sessions();
    }
}
