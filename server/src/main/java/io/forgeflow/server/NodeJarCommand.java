package io.forgeflow.server;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.forgeflow.cli.ClientCommand;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * A command of the command-line client ({@code cli} module) as a command of the node's jar:
 * {@code java -jar forgeflow.jar jobs list} runs the same code as {@code java -jar forgeflow-cli.jar jobs list}.
 */
final class NodeJarCommand extends Command {
    private final ClientCommand command;

    NodeJarCommand(ClientCommand command) {
        super(command.getName(), command.getDescription());
        this.command = command;
    }

    @Override
    public void configure(Subparser subparser) {
        command.configure(subparser);
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) {
        command.run(namespace);
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        command.onError(namespace, e);
    }
}
