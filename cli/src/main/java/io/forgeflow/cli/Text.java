package io.forgeflow.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Text for a terminal. What the server sends (names, outputs, errors) passes through {@link #safe} or {@link #line}
 * first: control characters, escape sequences among them, are shown as {@code ?} so that a job's output cannot move
 * the cursor, retitle the window or hide lines of the operator's terminal.
 */
final class Text {
    private Text() {
    }

    /** Keeps line breaks and tabs; any other control character becomes {@code ?}. */
    static String safe(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (c == '\n' || c == '\t') {
                out.appendCodePoint(c);
            } else if (c == '\r') {
                // a CRLF is a line break; a lone CR would overwrite the line
            } else if (Character.getType(c) == Character.CONTROL || c == 0x2028 || c == 0x2029 || isBidiControl(c)) {
                out.append('?');
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    /** Bidirectional overrides and isolates, which can show text in another order than it is. */
    private static boolean isBidiControl(int c) {
        return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F;
    }

    /** One line: line breaks and tabs become spaces, other control characters {@code ?}. */
    static String line(String text) {
        return safe(text).replace('\n', ' ').replace('\t', ' ');
    }

    /** At most max code points, the last an ellipsis when cut. */
    static String cut(String text, int max) {
        if (text.codePointCount(0, text.length()) <= max) {
            return text;
        }
        return text.substring(0, text.offsetByCodePoints(0, max - 1)) + "…";
    }

    /** An instant to the second, in UTC: {@code 2026-07-01T09:30:00Z}; null is {@code -}. */
    static String time(Instant instant) {
        return instant == null ? "-" : instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** {@code 850ms}, {@code 12.5s}, {@code 3m05s}, {@code 2h10m}. */
    static String duration(Duration d) {
        if (d == null || d.isNegative()) {
            return "-";
        }
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return String.format(java.util.Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(java.util.Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }

    /** A block of text indented by two spaces, or {@code (none)}. */
    static String indent(String text) {
        if (text == null || text.isEmpty()) {
            return "  (none)";
        }
        String body = safe(text);
        if (body.endsWith("\n")) {
            body = body.substring(0, body.length() - 1);
        }
        return "  " + body.replace("\n", "\n  ");
    }
}
