package io.forgeflow.domain.error;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The API turns these into answers naming the field at fault: the field must survive the trip. */
class ErrorsTest {
    @Test
    void aConflictNamesItsFieldWhenItHasOne() {
        assertThat(new ConflictException("idempotency_key", "reused").field()).isEqualTo("idempotency_key");
        assertThat(new ConflictException("job is cancelled").field()).isNull();
        assertThat(new ConflictException("job is cancelled")).hasMessage("job is cancelled");
    }

    @Test
    void aBadQueryNamesItsParameter() {
        InvalidQueryException e = new InvalidQueryException("limit", "limit must be between 1 and 500");
        assertThat(e.field()).isEqualTo("limit");
        assertThat(e).hasMessage("limit must be between 1 and 500");
    }

    @Test
    void notFoundSaysWhatWasMissing() {
        assertThat(new NotFoundException("run", "r1")).hasMessage("no run with id 'r1'");
    }
}
