package io.forgeflow.client;

/**
 * Receives the events of {@link ForgeFlowClient#subscribe(RunEventListener)}. Callbacks run on the subscription's own
 * thread, one at a time; an exception thrown by a callback is logged and does not end the subscription.
 */
@FunctionalInterface
public interface RunEventListener {

    /** A run changed state. */
    void onEvent(RunEvent event);

    /** The stream is connected (again): events from now on arrive live. */
    default void onOpen() {
    }

    /**
     * The stream failed. {@code retrying} true: the subscription reconnects by itself (network failures and 5xx),
     * sending {@code Last-Event-ID}. {@code retrying} false: it has stopped for good, because the server refused it
     * with a 4xx: 404 when the server does not implement {@code /api/events} (fall back to polling), 401/403 when the
     * token is refused.
     */
    default void onFailure(ForgeFlowException failure, boolean retrying) {
    }
}
