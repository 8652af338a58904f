package io.forgeflow.domain.port;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class CronSchedulesDefaultsTest {
    static final Instant NEXT = Instant.parse("2026-03-08T07:00:00Z");

    /** An implementation that only knows nextAfter: fireAfter reports the fire's own local time. */
    final CronSchedules nextOnly = new CronSchedules() {
        @Override
        public void validate(String expression) {
        }

        @Override
        public Optional<Instant> nextAfter(String expression, ZoneId zone, Instant after) {
            return expression.equals("never") ? Optional.empty() : Optional.of(NEXT);
        }
    };

    @Test
    void fireAfterGivesTheInstantAndItsLocalTimeInTheZone() {
        ZoneId newYork = ZoneId.of("America/New_York");

        assertThat(nextOnly.fireAfter("0 3 * * *", newYork, NEXT.minusSeconds(60)))
                .contains(new CronSchedules.Fire(NEXT, LocalDateTime.of(2026, 3, 8, 3, 0)));
    }

    @Test
    void fireAfterIsEmptyWhenTheExpressionNeverFiresAgain() {
        assertThat(nextOnly.fireAfter("never", ZoneId.of("UTC"), NEXT)).isEmpty();
    }
}
