package io.forgeflow.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where the command line writes and what it reads from its environment ({@code FORGEFLOW_SERVER},
 * {@code FORGEFLOW_TOKEN}): the process's own, or a test's.
 */
public record Terminal(PrintStream out, PrintStream err, Map<String, String> env) {
    static final String FILE_SUFFIX = "_FILE";

    public Terminal {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        env = Map.copyOf(env);
    }

    /** System.out, System.err and the process environment. */
    public static Terminal system() {
        return new Terminal(System.out, System.err, System.getenv());
    }

    /**
     * The variable's value, or null when unset or blank. {@code name_FILE} names a file holding it instead, as
     * container secrets are given (one trailing line break dropped); setting both is an error naming both.
     */
    String variable(String name) {
        String file = env.get(name + FILE_SUFFIX);
        String value = file == null ? env.get(name) : fromFile(name, file);
        return value == null || value.isBlank() ? null : value.trim();
    }

    private String fromFile(String name, String file) {
        String variable = name + FILE_SUFFIX;
        if (env.get(name) != null) {
            throw new IllegalArgumentException(name + " and " + variable + " are both set: give the secret one way only "
                    + "(unset " + name + " to read it from " + file + ")");
        }
        if (file.isBlank()) {
            throw new IllegalArgumentException(variable + " is empty: give the path of a file holding the secret");
        }
        String text;
        try {
            text = Files.readString(Path.of(file.strip()), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(variable + "=" + file + " cannot be read: " + e, e);
        }
        text = text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (text.isBlank()) {
            throw new IllegalArgumentException(variable + "=" + file + " is empty: it must hold the secret");
        }
        return text;
    }
}
