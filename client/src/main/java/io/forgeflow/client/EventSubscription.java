package io.forgeflow.client;

import java.io.Closeable;

/** A live subscription to {@code GET /api/events}; {@link #close()} ends it (idempotent, never throws). */
public interface EventSubscription extends Closeable {

    /** Whether the subscription still runs: not closed and not stopped by a 4xx answer. */
    boolean isActive();

    /** The id of the last event received, sent as {@code Last-Event-ID} when reconnecting; null before the first. */
    String lastEventId();

    @Override
    void close();
}
