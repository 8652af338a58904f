package io.forgeflow.admin.support;

import java.util.regex.Pattern;

/**
 * What the limits forms (a tenant's, a queue's) read from their text fields, checked before anything is sent. Names
 * are the API's ({@code max_running}, {@code rate_limit.count}), so a form marks a refusal of its own and one of the
 * server's in the same place ({@link #root}).
 */
public final class LimitInput {
    private static final Pattern WHOLE = Pattern.compile("-?\\d{1,10}");

    private LimitInput() {
    }

    /** A field the operator must correct before anything is sent. */
    public static final class Invalid extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String name;

        Invalid(String name, String message) {
            super(message, null, false, false);
            this.name = name;
        }

        /** The API's name of the field, e.g. {@code rate_limit.count}. */
        public String name() {
            return name;
        }
    }

    /** A whole number, or null when the field is empty (no limit); ranges are the server's to check. */
    public static Integer whole(String text, String name) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            return null;
        }
        if (!WHOLE.matcher(t).matches()) {
            throw new Invalid(name, name + " must be a whole number, was \"" + t + "\"");
        }
        long value = Long.parseLong(t);
        if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE) {
            throw new Invalid(name, name + " is out of range, was " + t);
        }
        return (int) value;
    }

    /** The rate limit the two fields give, as {count, per seconds}; null when both are empty, refused when one is. */
    public static int[] rate(String count, String perSeconds) {
        Integer c = whole(count, "rate_limit.count");
        Integer per = whole(perSeconds, "rate_limit.per_seconds");
        if ((c == null) != (per == null)) {
            throw new Invalid("rate_limit", "rate_limit needs both the starts and the seconds, or neither (no limit)");
        }
        return c == null ? null : new int[]{c, per};
    }

    /** The field an error names, without its part: {@code rate_limit} of {@code rate_limit.count}; null for null. */
    public static String root(String field) {
        return field == null ? null : field.split("[.\\[]", 2)[0];
    }
}
