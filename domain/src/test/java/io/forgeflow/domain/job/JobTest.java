package io.forgeflow.domain.job;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobTest {
    static final Instant T = Instant.parse("2025-01-01T00:00:00Z");
    static final JobSpec SPEC = new JobDraft("j", "shell", null, null, null, null, null, null, null, null, null).validate();

    @Test
    void aJobMadeWithoutSayingHowItCameInWasSubmittedOverTheApi() {
        assertThat(new Job("id", SPEC, JobStatus.ACTIVE, T, T, T).submittedVia()).isEqualTo("rest").isEqualTo(Job.VIA_REST);
    }

    @Test
    void changingItsStatusKeepsHowItCameIn() {
        Job sql = new Job("id", SPEC, JobStatus.ACTIVE, T, T, T, Job.VIA_SQL);

        Job paused = sql.withStatus(JobStatus.PAUSED, null, T.plusSeconds(1));

        assertThat(paused.submittedVia()).isEqualTo("sql");
        assertThat(paused.status()).isEqualTo(JobStatus.PAUSED);
        assertThat(paused.updatedAt()).isEqualTo(T.plusSeconds(1));
        assertThat(paused.createdAt()).isEqualTo(T);
    }

    @Test
    void howItCameInIsRequired() {
        assertThatThrownBy(() -> new Job("id", SPEC, JobStatus.ACTIVE, T, T, T, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("submittedVia");
    }

    @Test
    void aSubmittedJobIsActiveFromNowUnderItsTraceWithNothingFired() {
        io.forgeflow.domain.trace.TraceContext trace = new io.forgeflow.domain.trace.TraceContext(
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", null);
        Job job = Job.submitted("id-1", SPEC, T.plusSeconds(5), T, trace);

        assertThat(job).isEqualTo(new Job("id-1", SPEC, JobStatus.ACTIVE, T.plusSeconds(5), T, T, Job.VIA_REST, trace,
                ScheduleState.NONE));
    }
}
