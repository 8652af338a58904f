package io.forgeflow.application.worker;

import io.forgeflow.domain.port.WorkerHolder;

import java.util.Objects;

/**
 * Owns the worker's fenced identity, its holder ({@link WorkerHolder}): a fresh incarnation of its label when the
 * worker is made, and another after the leader ended the holder's lease ({@link LeaseKeeper}). Claims are made under
 * {@link #holder()}, and each claimed attempt keeps the holder it was claimed under in its fence.
 */
final class Incarnation {
    private final String label;
    private volatile String holder;

    Incarnation(String label) {
        this.label = Objects.requireNonNull(label, "label");
        this.holder = WorkerHolder.next(label);
    }

    String holder() {
        return holder;
    }

    /** A new incarnation; the previous holder is dead for good. Returns the new holder. */
    String renew() {
        holder = WorkerHolder.next(label);
        return holder;
    }
}
