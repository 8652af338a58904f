package io.forgeflow.adapter.executor;

import java.math.BigDecimal;
import java.time.Duration;

/** Durations for error messages: {@code 300s}, {@code 0.5s}. */
final class DurationText {
    private DurationText() {
    }

    static String seconds(Duration duration) {
        return BigDecimal.valueOf(duration.toMillis()).movePointLeft(3).stripTrailingZeros().toPlainString() + "s";
    }
}
