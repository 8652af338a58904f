package io.forgeflow.domain.job;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobStatusTest {

    @ParameterizedTest(name = "{0} -> {1}: {2}")
    @CsvSource({
            "ACTIVE, ACTIVE, false", "ACTIVE, PAUSED, true", "ACTIVE, CANCELLED, true", "ACTIVE, COMPLETED, true",
            "ACTIVE, DELETED, true",
            "PAUSED, ACTIVE, true", "PAUSED, PAUSED, false", "PAUSED, CANCELLED, true", "PAUSED, COMPLETED, true",
            "PAUSED, DELETED, true",
            "CANCELLED, ACTIVE, false", "CANCELLED, PAUSED, false", "CANCELLED, CANCELLED, false", "CANCELLED, COMPLETED, false",
            "CANCELLED, DELETED, true",
            "COMPLETED, ACTIVE, false", "COMPLETED, PAUSED, false", "COMPLETED, CANCELLED, false", "COMPLETED, COMPLETED, false",
            "COMPLETED, DELETED, true",
            "DELETED, ACTIVE, false", "DELETED, PAUSED, false", "DELETED, CANCELLED, false", "DELETED, COMPLETED, false",
            "DELETED, DELETED, false"})
    void theTransitionTableAllowsExactlyTheArrowsOfTheLifecycle(JobStatus from, JobStatus to, boolean allowed) {
        assertThat(from.canMoveTo(to)).isEqualTo(allowed);
    }

    @ParameterizedTest
    @EnumSource(JobStatus.class)
    void wireNamesRoundTrip(JobStatus status) {
        assertThat(JobStatus.fromWire(status.wireName())).isEqualTo(status);
        assertThat(status.wireName()).isEqualTo(status.name().toLowerCase());
    }

    @Test
    void anUnknownWireNameIsRefusedWithTheAcceptedValues() {
        assertThatThrownBy(() -> JobStatus.fromWire("ACTIVE"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ACTIVE'").hasMessageContaining("active, paused, cancelled, completed, deleted");
    }

    @Test
    void aStatusChangeKeepsTheDefinitionAndTheCreationTime() {
        Instant created = Instant.parse("2026-01-01T00:00:00Z");
        Instant now = created.plusSeconds(60);
        JobSpec spec = new JobSpec("n", "shell", Map.of(), "* * * * *", null, "UTC", 5, 3, 300, CatchUp.SKIP, null);
        Job job = new Job("j1", spec, JobStatus.ACTIVE, created.plusSeconds(30), created, created);

        Job paused = job.withStatus(JobStatus.PAUSED, null, now);

        assertThat(paused).isEqualTo(new Job("j1", spec, JobStatus.PAUSED, null, created, now));
    }
}
