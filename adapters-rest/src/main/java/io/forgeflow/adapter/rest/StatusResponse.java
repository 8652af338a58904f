package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code {"status": "ok"}} of the health routes. */
public record StatusResponse(@JsonProperty("status") String status) {
}
