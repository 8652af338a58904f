package io.forgeflow.adapter.executor;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class TruncatedTextTest {
    /** Characters of 1, 2, 3 and 4 bytes, so every cut position meets every kind of boundary. */
    static final String TEXT = "a\u00e9\u20ac\ud83d\ude00".repeat(40) + "end";
    static final byte[] BYTES = TEXT.getBytes(StandardCharsets.UTF_8);

    static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    /** A cut may fall up to 3 bytes short, more when the count shrank by some digits after the budget was set. */
    static int slack(String marker) {
        return 3 + Integer.toString(BYTES.length).length() - Long.toString(number(marker)).length();
    }

    static long number(String marker) {
        return Long.parseLong(marker.replaceAll("\\D", ""));
    }

    @Nested
    class KeepTail {
        @Test
        void neverSplitsACharacterAndCountsEveryDroppedByteAtEveryLimit() {
            for (int max = 1; max <= BYTES.length + 5; max++) {
                byte[] tail = Arrays.copyOfRange(BYTES, Math.max(0, BYTES.length - max), BYTES.length);

                String text = TruncatedText.keepTail(tail, BYTES.length, max);

                if (max >= BYTES.length) {
                    assertThat(text).isEqualTo(TEXT);
                    continue;
                }
                assertThat(text).as("limit %d", max).startsWith("[... ");
                String marker = text.substring(0, text.indexOf('\n') + 1);
                String kept = text.substring(marker.length());
                assertThat(marker).matches("\\[\\.\\.\\. \\d+ bytes truncated \\.\\.\\.\\]\n");
                assertThat(TEXT).endsWith(kept);
                assertThat(kept).doesNotContain("\ufffd");
                assertThat(number(marker) + utf8Length(kept)).isEqualTo(BYTES.length);
                if (max > marker.length()) {
                    assertThat(utf8Length(text)).as("limit %d", max).isLessThanOrEqualTo(max).isGreaterThanOrEqualTo(max - slack(marker));
                }
            }
        }

        @Test
        void aLimitSmallerThanTheMarkerGivesTheMarkerAlone() {
            assertThat(TruncatedText.keepTail("abcdef".getBytes(StandardCharsets.UTF_8), 1000, 5))
                    .isEqualTo("[... 1000 bytes truncated ...]\n");
        }
    }

    @Nested
    class KeepHead {
        @Test
        void neverSplitsACharacterAndCountsTheDroppedBytesWhenTheLengthIsKnown() {
            for (int max = 1; max < BYTES.length; max++) {
                byte[] head = Arrays.copyOf(BYTES, max + 1);

                String text = TruncatedText.keepHead(head, head.length, true, BYTES.length, max);

                String marker = text.substring(text.lastIndexOf('\n'));
                String kept = text.substring(0, text.length() - marker.length());
                assertThat(marker).matches("\n\\[\\.\\.\\. \\d+ bytes truncated \\.\\.\\.\\]");
                assertThat(TEXT).startsWith(kept);
                assertThat(kept).doesNotContain("\ufffd");
                assertThat(number(marker) + utf8Length(kept)).isEqualTo(BYTES.length);
                if (max > marker.length()) {
                    assertThat(utf8Length(text)).as("limit %d", max).isLessThanOrEqualTo(max).isGreaterThanOrEqualTo(max - slack(marker));
                }
            }
        }

        @Test
        void saysWhereItStoppedWhenTheLengthIsUnknown() {
            byte[] head = Arrays.copyOf(BYTES, 101);

            String text = TruncatedText.keepHead(head, head.length, true, -1, 100);

            assertThat(text).endsWith(" bytes ...]").contains("\n[... truncated after ");
            String kept = text.substring(0, text.lastIndexOf('\n'));
            assertThat(TEXT).startsWith(kept);
            assertThat(text).endsWith("truncated after " + utf8Length(kept) + " bytes ...]");
            assertThat(utf8Length(text)).isLessThanOrEqualTo(100);
        }

        @Test
        void aBodyWithinTheLimitIsKeptWhole() {
            assertThat(TruncatedText.keepHead(BYTES, BYTES.length, false, BYTES.length, BYTES.length)).isEqualTo(TEXT);
        }
    }
}
