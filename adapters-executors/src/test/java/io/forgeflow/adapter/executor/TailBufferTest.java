package io.forgeflow.adapter.executor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TailBufferTest {

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {1, 7, 100, 8192, 8193, 65536})
    void keepsExactlyTheLastCapacityBytesWhateverTheChunkSizes(int capacity) {
        TailBuffer buffer = new TailBuffer(capacity);
        byte[] expected = new byte[0];
        long total = 0;
        Random random = new Random(capacity);
        for (int i = 0; i < 300; i++) {
            byte[] chunk = new byte[random.nextInt(3 * capacity + 2)];
            random.nextBytes(chunk);
            int offset = chunk.length == 0 ? 0 : random.nextInt(chunk.length);
            buffer.write(chunk, offset, chunk.length - offset);
            total += chunk.length - offset;
            ByteArrayOutputStream joined = new ByteArrayOutputStream();
            joined.write(expected, 0, expected.length);
            joined.write(chunk, offset, chunk.length - offset);
            byte[] all = joined.toByteArray();
            expected = Arrays.copyOfRange(all, Math.max(0, all.length - capacity), all.length);

            assertThat(buffer.totalBytes()).isEqualTo(total);
            assertThat(buffer.snapshot()).isEqualTo(expected);
        }
    }

    @Test
    void anUntruncatedOutputIsReturnedAsItIs() {
        TailBuffer buffer = new TailBuffer(64);
        byte[] bytes = "h\u00e9llo\n".getBytes(StandardCharsets.UTF_8);
        buffer.write(bytes, 0, bytes.length);

        assertThat(buffer.text()).isEqualTo("h\u00e9llo\n");
    }

    @Test
    void anEmptyBufferIsEmptyText() {
        assertThat(new TailBuffer(10).text()).isEmpty();
    }

    @Test
    void aTruncatedOutputStartsWithTheMarker() {
        TailBuffer buffer = new TailBuffer(40);
        byte[] bytes = "0123456789".repeat(10).getBytes(StandardCharsets.US_ASCII);
        buffer.write(bytes, 0, bytes.length);

        assertThat(buffer.text()).isEqualTo("[... 90 bytes truncated ...]\n0123456789");
    }
}
