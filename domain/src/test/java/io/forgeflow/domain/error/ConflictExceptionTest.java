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
}
