package io.forgeflow.admin.overview;

/** How the overview learns about run changes. */
public enum LiveMode {
    /** Opening the event stream. */
    CONNECTING,
    /** Events arrive as they happen over {@code GET /api/events}. */
    LIVE,
    /** The event stream dropped; it reconnects while the overview polls. */
    RECONNECTING,
    /** The server has no usable event stream (404, or a refused token): the overview polls every interval. */
    POLLING
}
