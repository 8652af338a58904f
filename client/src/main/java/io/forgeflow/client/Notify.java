package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * A job's notices ({@code notify}, README "Notices"): each event of {@code on} is POSTed once to {@code url}, as a run
 * of the system queue {@code forgeflow-notices}. The server checks both (422 naming {@code notify.url} or
 * {@code notify.on}).
 *
 * @param url where the notices go: an absolute http or https URL
 * @param on  {@link #DEAD}, {@link #PAUSED}, {@link #RECOVERED}; null or empty when sent: all three
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Notify(String url, List<String> on) {
    /** A run of the job ended dead. */
    public static final String DEAD = "dead";
    /** The job was paused (by an operator or by pause_after_failures). */
    public static final String PAUSED = "paused";
    /** A run succeeded after dead runs. */
    public static final String RECOVERED = "recovered";

    @JsonCreator
    public Notify {
        on = on == null ? null : List.copyOf(on);
    }

    /** Notices to {@code url} for the events {@code on} (none given: all three). */
    public static Notify of(String url, String... on) {
        return new Notify(url, on == null || on.length == 0 ? null : List.of(on));
    }
}
