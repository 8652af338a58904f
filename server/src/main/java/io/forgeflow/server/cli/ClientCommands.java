package io.forgeflow.server.cli;

import io.dropwizard.core.setup.Bootstrap;

/**
 * Registers the command-line client: {@code jobs}, {@code runs}, {@code batches}, {@code dlq}, {@code queues}, {@code stats},
 * {@code nodes}, {@code schedules}.
 */
public final class ClientCommands {
    private ClientCommands() {
    }

    public static void register(Bootstrap<?> bootstrap, Terminal terminal) {
        bootstrap.addCommand(new JobsCommand(terminal));
        bootstrap.addCommand(new RunsCommand(terminal));
        bootstrap.addCommand(new BatchesCommand(terminal));
        bootstrap.addCommand(new DlqCommand(terminal));
        bootstrap.addCommand(new QueuesCommand(terminal));
        bootstrap.addCommand(new StatsCommand(terminal));
        bootstrap.addCommand(new NodesCommand(terminal));
        bootstrap.addCommand(new SchedulesCommand(terminal));
    }
}
