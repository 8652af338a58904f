package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

import java.util.regex.Pattern;

/** The rules for queue names and concurrency keys. */
public final class QueueNames {
    /** The queue of a job that names none. */
    public static final String DEFAULT = "default";
    public static final int MAX_LENGTH = 100;
    public static final int MAX_KEY_LENGTH = 200;
    /** Letters, digits, '.', '_' and '-', starting with a letter or digit: safe in URLs, metrics and config lists. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private QueueNames() {
    }

    /** Whether {@code name} is a well-formed queue name. */
    public static boolean isValid(String name) {
        return name != null && name.length() <= MAX_LENGTH && NAME.matcher(name).matches();
    }

    /** {@code name} if it is a well-formed queue name; else a {@link ValidationException} on {@code field}. */
    public static String require(String field, String name) {
        if (!isValid(name)) {
            String shown = name == null ? "null" : name.length() > 60 ? name.substring(0, 60) + "…" : name;
            throw new ValidationException(field, field + " '" + shown.replace('\0', '?') + "' is not a valid queue "
                    + "name: use 1 to " + MAX_LENGTH + " letters, digits, '.', '_' or '-', starting with a letter or "
                    + "digit, e.g. \"reports\"");
        }
        return name;
    }
}
