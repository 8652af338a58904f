package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A job's {@code throttle} (README "Flow control"): at most {@code count} runs sharing {@code key} start in any
 * {@code perSeconds} window across the cluster; the others wait, pending. The server checks each part (422 naming
 * {@code throttle.<part>}).
 *
 * @param key        the key the runs share, 1-200 characters
 * @param count      1-100,000 starts per window
 * @param perSeconds the window, 1-86,400 seconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Throttle(String key, Integer count, Integer perSeconds) {
    @JsonCreator
    public Throttle {
    }
}
