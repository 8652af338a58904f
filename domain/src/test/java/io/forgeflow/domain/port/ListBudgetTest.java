package io.forgeflow.domain.port;

import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ListBudgetTest {
    @Test
    void aBudgetIsAtLeast64KiBAndDefaultsTo4MiB() {
        assertThat(ListBudget.DEFAULT.bytes()).isEqualTo(4L * 1024 * 1024);
        assertThat(new ListBudget(65_536).bytes()).isEqualTo(65_536);
        assertThatThrownBy(() -> new ListBudget(65_535)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 65536 bytes, was 65535");
    }

    @Test
    void aListedJobNeedsItsJobAndTellsWhetherItsPayloadWasLeftOut() {
        Instant t = Instant.parse("2026-03-01T00:00:00Z");
        Job job = new Job("0190e0b4-7c3a-7d2e-8f00-000000000001",
                new JobSpec("hello", "shell", Map.of("command", "true"), null, null, "UTC", 5, 3, 60,
                        CatchUp.SKIP, null), JobStatus.ACTIVE, t, t, t, "api");
        assertThatThrownBy(() -> new ListedJob(null, false)).isInstanceOf(NullPointerException.class).hasMessage("job");
        assertThat(new ListedJob(job, true).payloadTruncated()).isTrue();
        assertThat(ListedJob.PAYLOAD_LIMIT_BYTES).isEqualTo(65_536);
    }
}
