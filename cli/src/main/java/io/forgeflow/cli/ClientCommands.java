package io.forgeflow.cli;

import java.util.List;

/**
 * The command-line client's commands: {@code jobs}, {@code runs}, {@code batches}, {@code dlq}, {@code queues},
 * {@code tenants}, {@code stats}, {@code nodes}, {@code schedules}.
 */
public final class ClientCommands {
    private ClientCommands() {
    }

    /**
     * Every command, printing to terminal.
     *
     * @param program how the user starts the program ({@code java -jar forgeflow-cli.jar}), for the hints they print
     */
    public static List<ClientCommand> all(Terminal terminal, String program) {
        return List.of(new JobsCommand(terminal, program), new RunsCommand(terminal, program),
                new BatchesCommand(terminal, program), new DlqCommand(terminal, program),
                new QueuesCommand(terminal, program), new TenantsCommand(terminal, program),
                new StatsCommand(terminal, program),
                new NodesCommand(terminal, program), new SchedulesCommand(terminal, program));
    }
}
