package io.forgeflow.domain.error;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ConflictExceptionTest {
    @Test
    void aHeldUniqueKeyNamesTheFieldTheCodeAndTheLiveJob() {
        ConflictException e = ConflictException.uniqueKeyHeld("sync-42", "default", "job-7");

        assertThat(e.field()).isEqualTo("unique_key");
        assertThat(e.code()).isEqualTo("unique_conflict").isEqualTo(ConflictException.UNIQUE_CONFLICT);
        assertThat(e.jobId()).isEqualTo("job-7");
        assertThat(e.getMessage()).contains("sync-42", "job-7", "default", "return_existing");
    }

    @Test
    void aReusedIdempotencyKeyNamesTheFieldTheCodeAndTheJobHoldingIt() {
        ConflictException e = ConflictException.idempotencyKeyUsed("billing-2026-11", "job-9");

        assertThat(e.field()).isEqualTo("idempotency_key");
        assertThat(e.code()).isEqualTo("idempotency_conflict").isEqualTo(ConflictException.IDEMPOTENCY_CONFLICT);
        assertThat(e.jobId()).isNull();
        assertThat(e.getMessage()).contains("billing-2026-11", "job-9", "same body");
    }

    @Test
    void aConflictWithoutACodeHasNone() {
        ConflictException e = new ConflictException("job j is cancelled");

        assertThat(e.code()).isNull();
        assertThat(e.field()).isNull();
        assertThat(ConflictException.JOB_RUNNING).isEqualTo("job_running");
    }

    @Test
    void aJobWithARunningRunNamesTheJobAndHowToDeleteItAnyway() {
        ConflictException e = ConflictException.jobRunning("job-3");

        assertThat(e.code()).isEqualTo("job_running");
        assertThat(e.jobId()).isEqualTo("job-3");
        assertThat(e.field()).isNull();
        assertThat(e.getMessage()).contains("job-3", "cancel_running=true");
    }
}
