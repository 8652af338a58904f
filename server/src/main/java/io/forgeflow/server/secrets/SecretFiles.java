package io.forgeflow.server.secrets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Secrets given as files, as container secrets are: {@code FORGEFLOW_DATABASE_URL_FILE=/run/secrets/db-url} reads
 * the value of {@code FORGEFLOW_DATABASE_URL} from that file (one trailing line break dropped), so the secret is in
 * no process environment a job could read. Setting both a variable and its {@code _FILE} is an error naming both.
 */
public final class SecretFiles {
    /** Every variable of the node that holds a secret (the command-line client reads its FORGEFLOW_TOKEN_FILE itself). */
    public static final List<String> SECRET_VARIABLES = List.of("FORGEFLOW_DATABASE_URL", "FORGEFLOW_DATABASE_SESSION_URL",
            "FORGEFLOW_API_TOKENS", "FORGEFLOW_METRICS_TOKEN", "FORGEFLOW_NOTIFY_SECRET");
    public static final String SUFFIX = "_FILE";

    private SecretFiles() {
    }

    /**
     * The environment with each {@code X_FILE} of {@link #SECRET_VARIABLES} replaced by {@code X} and the file's
     * content.
     *
     * @throws IllegalArgumentException when both {@code X} and {@code X_FILE} are set, or the file cannot be read
     */
    public static Map<String, String> resolve(Map<String, String> env) {
        Map<String, String> out = null;
        for (String name : SECRET_VARIABLES) {
            String file = env.get(name + SUFFIX);
            if (file == null) {
                continue;
            }
            if (env.get(name) != null) {
                throw new IllegalArgumentException(name + " and " + name + SUFFIX + " are both set: give the secret one "
                        + "way only (unset " + name + " to read it from " + file + ")");
            }
            if (out == null) {
                out = new HashMap<>(env);
            }
            out.remove(name + SUFFIX);
            out.put(name, read(name + SUFFIX, file));
        }
        return out == null ? env : out;
    }

    /** The value of {@code name} in {@code env}, from {@code name_FILE} when that is set instead. */
    public static String value(Map<String, String> env, String name) {
        return resolve(env).get(name);
    }

    private static String read(String variable, String file) {
        if (file.isBlank()) {
            throw new IllegalArgumentException(variable + " is empty: give the path of a file holding the secret");
        }
        String text;
        try {
            text = Files.readString(Path.of(file.strip()), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(variable + "=" + file + " cannot be read: " + e, e);
        }
        if (text.endsWith("\r\n")) {
            text = text.substring(0, text.length() - 2);
        } else if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        if (text.isBlank()) {
            throw new IllegalArgumentException(variable + "=" + file + " is empty: it must hold the secret");
        }
        return text;
    }
}
