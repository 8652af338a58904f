package io.forgeflow.client;

/**
 * The answer of {@code GET /readyz}: ready (200), or not (503) with the server's reason (e.g. the database is
 * unreachable or not migrated).
 */
public record Readiness(boolean ready, String detail) {
}
