package io.forgeflow.adapter.executor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterTest {
    static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void wholeSecondsAreTheWait() {
        assertThat(RetryAfter.parse("120", null, NOW)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse(" 0 ", null, NOW)).contains(Duration.ZERO);
    }

    @Test
    void anHttpDateIsMeasuredFromTheResponsesDateOrElseFromNow() {
        String at = "Tue, 01 Dec 2026 10:02:00 GMT";
        assertThat(RetryAfter.parse(at, null, NOW)).contains(Duration.ofMinutes(2));
        assertThat(RetryAfter.parse(at, "Tue, 01 Dec 2026 10:01:00 GMT", NOW)).contains(Duration.ofMinutes(1));
        assertThat(RetryAfter.parse(at, "not a date", NOW)).contains(Duration.ofMinutes(2));
    }

    @Test
    void aDateInThePastIsNoWait() {
        assertThat(RetryAfter.parse("Tue, 01 Dec 2026 09:00:00 GMT", null, NOW)).contains(Duration.ZERO);
    }

    @Test
    void hugeValuesAreReadAsTheLongest() {
        assertThat(RetryAfter.parse("99999999999999999999", null, NOW)).contains(RetryAfter.LONGEST);
        assertThat(RetryAfter.parse("99999999999", null, NOW)).contains(RetryAfter.LONGEST);
        assertThat(RetryAfter.parse("31536000", null, NOW)).contains(Duration.ofDays(365));
        assertThat(RetryAfter.parse("Fri, 01 Dec 2028 10:00:00 GMT", null, NOW)).contains(RetryAfter.LONGEST);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "soon", "-5", "1.5", "12s", "2026-12-01T10:02:00Z"})
    void otherValuesAreIgnored(String value) {
        assertThat(RetryAfter.parse(value, null, NOW)).isEqualTo(Optional.empty());
    }

    @Test
    void aMissingHeaderIsNoWait() {
        assertThat(RetryAfter.parse(null, null, NOW)).isEmpty();
    }
}
