package io.forgeflow.admin.support;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Labels as an operator types them, {@code team:ops, env:prod}, with the server's rules (API.md labels): keys are 1 to
 * 63 of {@code a-z 0-9 _ . -}, values at most 200 characters, at most 20 labels, each key once.
 */
public final class LabelText {
    static final int MAX_LABELS = 20;
    static final int MAX_VALUE_LENGTH = 200;
    private static final Pattern KEY = Pattern.compile("[a-z0-9_.-]{1,63}");

    private LabelText() {
    }

    /** The labels in text, in key order; empty text is none. Throws with a message for the operator. */
    public static Map<String, String> parse(String text) {
        Map<String, String> labels = new TreeMap<>();
        if (text == null || text.isBlank()) {
            return labels;
        }
        for (String part : text.split(",")) {
            String pair = part.strip();
            if (pair.isEmpty()) {
                continue;
            }
            int colon = pair.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("'" + pair + "' has no ':': write key:value, several separated by "
                        + "commas, e.g. team:ops, env:prod.");
            }
            String key = pair.substring(0, colon).strip();
            String value = pair.substring(colon + 1).strip();
            if (!KEY.matcher(key).matches()) {
                throw new IllegalArgumentException("'" + key + "' is not a label key: use 1 to 63 of a-z, 0-9, '_', "
                        + "'.', '-' (lower case), e.g. team.");
            }
            if (value.length() > MAX_VALUE_LENGTH || value.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("The value of " + key + " must be at most " + MAX_VALUE_LENGTH
                        + " characters without control characters.");
            }
            if (labels.put(key, value) != null) {
                throw new IllegalArgumentException("The key " + key + " is given twice: a label has one value.");
            }
        }
        if (labels.size() > MAX_LABELS) {
            throw new IllegalArgumentException("At most " + MAX_LABELS + " labels (this has " + labels.size() + ").");
        }
        return labels;
    }

    /** {@code env:prod, team:ops}: labels as {@link #parse} reads them back. */
    public static String format(Map<String, String> labels) {
        StringBuilder s = new StringBuilder();
        new TreeMap<>(labels).forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append(':').append(v));
        return s.toString();
    }
}
