package io.forgeflow.test;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.spring.HandlerJob;

/**
 * A job the code under test enqueued, as {@link TestForgeFlow} recorded it.
 *
 * @param args the handler's args as JSON (an empty object when it gave none)
 */
public record EnqueuedJob(String handler, JsonNode args, HandlerJob job, String jobId, String runId) {
}
