package io.forgeflow.server;

import io.dropwizard.core.cli.CheckCommand;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import io.forgeflow.cli.ExitCodes;
import io.forgeflow.cli.Terminal;

/**
 * The jar's command line run in-process: what {@code java -jar forgeflow.jar ARGS} does (the same commands, parser
 * and help), but with given streams and environment, returning the exit code instead of exiting. For tests; the
 * command-line client's own program is {@code io.forgeflow.cli.ForgeFlowCli} (forgeflow-cli.jar).
 */
public final class ForgeFlowCli {
    private ForgeFlowCli() {
    }

    /** Runs one command line; returns its exit code ({@link ExitCodes}). */
    public static int run(Terminal terminal, String... args) {
        ForgeFlowApplication application = new ForgeFlowApplication(terminal);
        Bootstrap<ForgeFlowConfiguration> bootstrap = new Bootstrap<>(application);
        bootstrap.addCommand(new ServerCommand<>(application)); // Application.addDefaultCommands, which is protected
        bootstrap.addCommand(new CheckCommand<>(application));
        application.initialize(bootstrap);
        Cli cli = new Cli(new JarLocation(ForgeFlowApplication.class), bootstrap, terminal.out(), terminal.err());
        int code = cli.run(args).map(ExitCodes::of).orElse(ExitCodes.OK);
        terminal.out().flush();
        terminal.err().flush();
        return code;
    }
}
