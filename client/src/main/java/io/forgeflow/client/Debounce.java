package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A one-off job's {@code debounce} (README "Flow control"): submissions with the same key within the period collapse
 * into one run. {@link #TRAILING}: each one replaces the pending run's payload and pushes its due time to that
 * submission + {@code periodSeconds}, never past the first + {@code maxWaitSeconds}. {@link #LEADING}: the first runs
 * at once, later ones within the period join it. The server checks each part (422 naming {@code debounce.<part>}).
 *
 * @param key            the key the submissions share, 1-200 characters
 * @param periodSeconds  1-86,400
 * @param maxWaitSeconds trailing only: from the period to 7 days; null when sent: 10 periods
 * @param edge           {@link #TRAILING} or {@link #LEADING}; null when sent: trailing
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Debounce(String key, Integer periodSeconds, Integer maxWaitSeconds, String edge) {
    /** One run with the last payload after the burst (the default). */
    public static final String TRAILING = "trailing";
    /** The first submission runs at once; the rest within the period join it. */
    public static final String LEADING = "leading";

    @JsonCreator
    public Debounce {
    }
}
