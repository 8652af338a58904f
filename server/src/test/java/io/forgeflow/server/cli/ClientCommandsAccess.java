package io.forgeflow.server.cli;

/** What tests outside this package need of it. */
public final class ClientCommandsAccess {
    private ClientCommandsAccess() {
    }

    public static String tokenVariable() {
        return ClientCommand.TOKEN_VARIABLE;
    }
}
