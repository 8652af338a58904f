package io.forgeflow.adapter.rest;

import java.time.Instant;

/** Instants as the API writes them: RFC 3339 in UTC ({@code 2026-07-01T09:30:00Z}), null stays null. */
final class Timestamps {
    private Timestamps() {
    }

    static String format(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
