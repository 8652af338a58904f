package io.forgeflow.client;

import java.time.Instant;

/**
 * One event of {@code GET /api/events}: a run changed state. {@code id} is the SSE event id (sent back as
 * {@code Last-Event-ID} on reconnect), {@code type} the SSE event name ({@code message} when the server names none).
 * The run fields are read from the JSON {@code data}: {@code run_id} (or {@code id} when the data is a run object),
 * {@code job_id}, {@code status}, {@code previous_status} and {@code at} (or {@code updated_at}/{@code finished_at});
 * any of them may be null when the server does not send it. {@code data} is the raw payload.
 */
public record RunEvent(String id, String type, String runId, String jobId, String status, String previousStatus,
                       Instant at, String data) {
}
