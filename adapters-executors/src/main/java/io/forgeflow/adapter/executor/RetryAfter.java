package io.forgeflow.adapter.executor;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * An HTTP {@code Retry-After} value (RFC 9110 10.2.3): whole seconds ({@code 120}) or an HTTP date
 * ({@code Wed, 21 Oct 2026 07:28:00 GMT}). A date is measured from the response's own {@code Date} header when it has
 * one, so a skewed server clock does not shift the wait, else from this node's clock; a date in the past is no wait.
 */
final class RetryAfter {
    /** Longer values are read as this (the retry policy caps them far below anyway). */
    static final Duration LONGEST = Duration.ofDays(365);

    private RetryAfter() {
    }

    /** The wait {@code value} asks for; empty when it is missing or neither form. */
    static Optional<Duration> parse(String value, String dateHeader, Instant now) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String text = value.strip();
        if (text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            if (text.length() > 11) {
                return Optional.of(LONGEST);
            }
            Duration seconds = Duration.ofSeconds(Long.parseLong(text));
            return Optional.of(seconds.compareTo(LONGEST) > 0 ? LONGEST : seconds);
        }
        Optional<Instant> at = date(text);
        if (at.isEmpty()) {
            return Optional.empty();
        }
        Instant from = date(dateHeader).orElse(now);
        Duration wait = Duration.between(from, at.get());
        if (wait.isNegative()) {
            return Optional.of(Duration.ZERO);
        }
        return Optional.of(wait.compareTo(LONGEST) > 0 ? LONGEST : wait);
    }

    private static Optional<Instant> date(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ZonedDateTime.parse(text.strip(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }
}
