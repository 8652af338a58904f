package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Node;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.util.List;

/** {@code forgeflow nodes}: the cluster's live nodes and the scheduler leader. */
final class NodesCommand extends ClientCommand {

    NodesCommand(Terminal terminal, String program) {
        super("nodes", "the cluster's nodes: roles, running runs, last heartbeat, the scheduler leader", terminal, program);
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
        Table table = new Table("WORKER", "ROLES", "VERSION", "RUNNING>", "LAST SEEN", "LEADER");
        nodes.forEach(n -> table.row(n.workerId(), String.join(",", n.roles()), n.version(), n.running(),
                Text.time(n.lastSeenAt()), n.leader() ? "leader" : ""));
        out.table(table);
    }
}
