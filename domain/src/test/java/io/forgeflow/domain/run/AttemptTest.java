package io.forgeflow.domain.run;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AttemptTest {
    static final Instant T = Instant.parse("2026-12-01T00:00:00Z");

    @Test
    void aRetryAfterOfZeroSecondsIsKept() {
        Attempt a = new Attempt("r1", 1, "w1", T, T, AttemptOutcome.FAILED, "HTTP 503", 0);

        assertThat(a.retryAfterSeconds()).isZero();
    }

    @Test
    void aNegativeRetryAfterIsRefusedNamingTheField() {
        assertThatThrownBy(() -> new Attempt("r1", 1, "w1", T, T, AttemptOutcome.FAILED, "HTTP 503", -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryAfterSeconds");
    }

    @Test
    void theShortConstructorHasNoRetryAfter() {
        assertThat(new Attempt("r1", 1, "w1", T, null, null, null).retryAfterSeconds()).isNull();
    }
}
