package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * A job's own retry backoff ({@code retry} in the API): after failed attempt n the next one waits a random time up to
 * min(maxSeconds, baseSeconds * 2^(n-1)). A part that is null is the server's default (base {@code FORGEFLOW_RETRY_BASE},
 * 5 s; cap 15 min). The server answers {@code retry: null} for a job that gave none.
 *
 * @param baseSeconds 1-86400, at most maxSeconds
 * @param maxSeconds  1-86400
 */
public record Retry(Integer baseSeconds, Integer maxSeconds) {
    @JsonCreator
    public Retry {
    }
}
