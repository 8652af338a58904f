package io.forgeflow.adapter.executor;

import java.nio.charset.StandardCharsets;

/**
 * Turns captured bytes into text of at most {@code maxBytes} UTF-8 bytes, marker included. A cut never splits a
 * multi-byte character (for input that is valid UTF-8) and is always marked, so an operator knows the text is
 * partial: {@code [... N bytes truncated ...]} on the first line when the tail is kept, on the last line when the
 * head is kept. Should {@code maxBytes} be smaller than the marker, only the marker is returned.
 */
final class TruncatedText {
    private TruncatedText() {
    }

    /**
     * The end of an output.
     *
     * @param tail       the last bytes of the output (at most maxBytes of them are used)
     * @param totalBytes how long the whole output was
     */
    static String keepTail(byte[] tail, long totalBytes, int maxBytes) {
        if (totalBytes <= maxBytes && tail.length == totalBytes) {
            return utf8(tail, 0, tail.length);
        }
        int budget = Math.max(0, maxBytes - tailMarker(totalBytes).length()); // the real count has no more digits
        int from = tail.length - Math.min(budget, tail.length);
        while (from < tail.length && isContinuation(tail[from])) {
            from++;
        }
        return tailMarker(totalBytes - (tail.length - from)) + utf8(tail, from, tail.length - from);
    }

    /**
     * The start of a body, read up to {@code length} bytes.
     *
     * @param more       whether bytes were left unread after {@code length}
     * @param totalBytes the whole length when known (a Content-Length), else -1
     */
    static String keepHead(byte[] head, int length, boolean more, long totalBytes, int maxBytes) {
        if (!more && length <= maxBytes) {
            return utf8(head, 0, length);
        }
        String estimate = headMarker(totalBytes, totalBytes, length);
        int end = Math.max(0, Math.min(length, maxBytes - estimate.length()));
        while (end > 0 && end < length && isContinuation(head[end])) {
            end--;
        }
        return utf8(head, 0, end) + headMarker(totalBytes, totalBytes < 0 ? -1 : totalBytes - end, end);
    }

    private static String tailMarker(long truncated) {
        return "[... " + truncated + " bytes truncated ...]\n";
    }

    private static String headMarker(long totalBytes, long truncated, int kept) {
        return totalBytes < 0
                ? "\n[... truncated after " + kept + " bytes ...]"
                : "\n[... " + truncated + " bytes truncated ...]";
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }

    private static String utf8(byte[] bytes, int offset, int length) {
        return new String(bytes, offset, length, StandardCharsets.UTF_8);
    }
}
