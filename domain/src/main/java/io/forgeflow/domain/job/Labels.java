package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The rules of a job's {@code labels} (API.md, "Jobs"): an object of string to string, at most {@value #MAX_LABELS}
 * entries, keys of 1 to {@value #MAX_KEY_LENGTH} characters from {@code [a-z0-9_.-]}, values of at most
 * {@value #MAX_VALUE_LENGTH} characters without control characters. Runs carry their job's labels.
 */
public final class Labels {
    public static final int MAX_LABELS = 20;
    public static final int MAX_KEY_LENGTH = 63;
    public static final int MAX_VALUE_LENGTH = 200;
    private static final Pattern KEY = Pattern.compile("[a-z0-9_.-]{1," + MAX_KEY_LENGTH + "}");

    private Labels() {
    }

    /** The labels, checked, in key order and unmodifiable; null is none. Errors name {@code labels} or {@code labels.<key>}. */
    public static Map<String, String> validate(Map<String, ?> raw) {
        if (raw == null || raw.isEmpty()) {
            return Map.of();
        }
        if (raw.size() > MAX_LABELS) {
            throw new ValidationException("labels", "labels may hold at most " + MAX_LABELS + " entries, had "
                    + raw.size() + ": keep the ones you filter by");
        }
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, ?> e : raw.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!isKey(key)) {
                throw new ValidationException("labels", "labels has a bad key '" + shorten(key) + "': keys are 1 to "
                        + MAX_KEY_LENGTH + " characters of a-z, 0-9, '_', '.' or '-', e.g. \"team\" or \"app.tier\"");
            }
            String field = "labels." + key;
            if (!(e.getValue() instanceof String value)) {
                throw new ValidationException(field, field + " must be a string, e.g. \"billing\", not "
                        + (e.getValue() == null ? "null" : e.getValue() instanceof Map ? "an object"
                        : e.getValue().getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT)));
            }
            checkValue(field, value);
            out.put(key, value);
        }
        return Collections.unmodifiableMap(out);
    }

    /** Whether {@code key} is a well-formed label key. */
    public static boolean isKey(String key) {
        return key != null && KEY.matcher(key).matches();
    }

    /** Checks a label value (also a filter's); {@code field} names it in the error. */
    public static void checkValue(String field, String value) {
        if (value.length() > MAX_VALUE_LENGTH) {
            throw new ValidationException(field, field + " must be at most " + MAX_VALUE_LENGTH
                    + " characters, was " + value.length());
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new ValidationException(field, field + " must not contain control characters (NUL, newlines, "
                    + "tabs): use plain text such as \"billing\"");
        }
    }

    private static String shorten(String s) {
        String cut = s.length() > 60 ? s.substring(0, 60) + "…" : s;
        return cut.replace('\0', '?');
    }
}
