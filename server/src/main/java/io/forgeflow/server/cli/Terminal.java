package io.forgeflow.server.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.Objects;

/**
 * Where the command line writes and what it reads from its environment ({@code FORGEFLOW_SERVER},
 * {@code FORGEFLOW_TOKEN}): the process's own, or a test's.
 */
public record Terminal(PrintStream out, PrintStream err, Map<String, String> env) {

    public Terminal {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        env = Map.copyOf(env);
    }

    /** System.out, System.err and the process environment. */
    public static Terminal system() {
        return new Terminal(System.out, System.err, System.getenv());
    }

    /** The variable's value (read from {@code name_FILE} for a secret), or null when unset or blank. */
    String variable(String name) {
        String value = io.forgeflow.server.secrets.SecretFiles.value(env, name);
        return value == null || value.isBlank() ? null : value.trim();
    }
}
