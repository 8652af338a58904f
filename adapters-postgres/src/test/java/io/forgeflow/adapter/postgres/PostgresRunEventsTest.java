package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The payload format of the run events channel. */
class PostgresRunEventsTest {
    static final Instant AT = Instant.parse("2025-01-01T00:00:00.123Z");

    @Test
    void changesSurviveEncodingAndDecodingInOrder() {
        List<RunChange> changes = List.of(
                new RunChange(UUID.randomUUID().toString(), UUID.randomUUID().toString(), RunStatus.RUNNING, 1,
                        "host-1,with,commas", AT),
                new RunChange(UUID.randomUUID().toString(), UUID.randomUUID().toString(), RunStatus.PENDING, 0, null, AT));

        List<RunChange> decoded = new ArrayList<>();
        List<String> gaps = new ArrayList<>();
        for (String payload : PostgresRunEvents.encode(changes, null)) {
            PostgresRunEvents.decode(payload, decoded, gaps);
        }

        assertThat(decoded).isEqualTo(changes);
        assertThat(gaps).isEmpty();
    }

    @Test
    void manyChangesArePackedIntoPayloadsUnderTheNotifyLimit() {
        List<RunChange> changes = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            changes.add(new RunChange(UUID.randomUUID().toString(), UUID.randomUUID().toString(), RunStatus.SUCCEEDED,
                    i % 7, "worker-" + "x".repeat(150) + i, AT.plusMillis(i)));
        }

        List<String> payloads = PostgresRunEvents.encode(changes, "a reason");

        assertThat(payloads).hasSizeGreaterThan(10);
        assertThat(payloads).allSatisfy(p -> assertThat(p.getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(PostgresRunEvents.MAX_PAYLOAD_BYTES).isLessThan(8000));
        List<RunChange> decoded = new ArrayList<>();
        List<String> gaps = new ArrayList<>();
        payloads.forEach(p -> PostgresRunEvents.decode(p, decoded, gaps));
        assertThat(decoded).isEqualTo(changes);
        assertThat(gaps).containsExactly("a reason");
        assertThat(payloads.get(0)).startsWith("!a reason\n");
    }

    @Test
    void malformedLinesAreIgnored() {
        List<RunChange> decoded = new ArrayList<>();
        PostgresRunEvents.decode("garbage\n1,2,flying,1,5,w\n", decoded, new ArrayList<>());

        assertThat(decoded).isEmpty();
    }
}
