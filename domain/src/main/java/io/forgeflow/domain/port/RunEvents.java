package io.forgeflow.domain.port;

import io.forgeflow.domain.run.RunChange;

import java.util.List;

/**
 * The cluster-wide stream of run state changes, behind the live event feed ({@code /api/events}). Adapters that
 * change runs publish what committed; every node that subscribes hears the changes made on every node.
 *
 * <p>Best effort by design: an event can be lost (a node dies between its commit and the publication, the feed's
 * connection drops); subscribers are then told of the {@linkplain Listener#gap gap}, so that they can say so to
 * their clients instead of pretending the stream is complete. The database stays the source of truth.
 */
public interface RunEvents {

    /** Publishes nothing and hears nothing (nodes without a live feed, tests). */
    RunEvents NONE = new RunEvents() {
        @Override
        public void publish(List<RunChange> changes) {
        }

        @Override
        public AutoCloseable subscribe(Listener listener) {
            return () -> { };
        }
    };

    /**
     * Publishes changes that have committed. Cheap and non-blocking: it never does I/O on the caller's thread and
     * never runs inside the caller's transaction (changes are coalesced and sent by a background thread); it never
     * throws. Call it after the commit, never before.
     */
    void publish(List<RunChange> changes);

    /**
     * Registers a listener for the changes published by any node (this one included), in the order the database
     * delivered them. The listener is called on one background thread and must return quickly. Closing the returned
     * handle unsubscribes.
     */
    AutoCloseable subscribe(Listener listener);

    /** Hears the cluster's run changes. */
    interface Listener {
        /** Changes, in delivery order. */
        void changed(List<RunChange> changes);

        /** Changes may have been missed since the last call (a reconnect, an overflow); {@code reason} says why. */
        default void gap(String reason) {
        }
    }
}
