package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a job's notices go and for which events (issue 45, README "Notices"): each event is POSTed once to
 * {@code url} as a run of the system queue {@value #QUEUE} (an ordinary one-off {@code http} job, so it is retried and
 * its dead runs can be requeued). {@code dead}: a run of the job ended dead; {@code paused}: the job was paused (by an
 * operator, or by {@code pause_after_failures}); {@code recovered}: a run succeeded after one or more dead runs.
 * As submitted any part may be null; {@link #validate} checks it and gives {@code on} its default, every event.
 *
 * @param url absolute http or https URL, at most {@value #MAX_URL_LENGTH} characters
 * @param on  the events, a non-empty subset of {@link #EVENTS}, kept in that order without repeats
 */
public record Notify(String url, List<String> on) {
    public static final String DEAD = "dead";
    public static final String PAUSED = "paused";
    public static final String RECOVERED = "recovered";
    /** Every event, in the order the API lists them. */
    public static final List<String> EVENTS = List.of(DEAD, PAUSED, RECOVERED);
    public static final int MAX_URL_LENGTH = 2000;
    /** The queue the notices' http jobs run in. */
    public static final String QUEUE = "forgeflow-notices";

    public Notify {
        on = on == null ? null : java.util.Collections.unmodifiableList(new ArrayList<>(on));
    }

    /** Whether a notice is sent when {@code event} happens. */
    public boolean sends(String event) {
        return on != null && on.contains(event);
    }

    /**
     * The checked notify: {@code url} an absolute http(s) URL of at most {@value #MAX_URL_LENGTH} characters,
     * {@code on} a non-empty subset of {@link #EVENTS} (every event when null). Throws a {@link ValidationException}
     * naming {@code notify.url} or {@code notify.on}.
     */
    public Notify validate() {
        return new Notify(checkUrl(url), checkOn(on));
    }

    /**
     * A notify from text as a node's configuration or the CLI gives it: a URL and a comma-separated list of events
     * (null or blank: every event); null when the URL is null or blank. Checked as {@link #validate} does.
     */
    public static Notify parse(String url, String events) {
        if (url == null || url.isBlank()) {
            if (events != null && !events.isBlank()) {
                throw new ValidationException("notify.url", "notify.url is required with notify.on: give the URL "
                        + "the notices are POSTed to, e.g. https://hooks.example.com/forgeflow");
            }
            return null;
        }
        List<String> on = null;
        if (events != null && !events.isBlank()) {
            on = new ArrayList<>();
            for (String part : events.split(",")) {
                on.add(part.strip());
            }
        }
        return new Notify(url.strip(), on).validate();
    }

    private static String checkUrl(String url) {
        if (url == null || url.isBlank()) {
            throw new ValidationException("notify.url", "notify.url is required: the http or https URL the notices "
                    + "are POSTed to, e.g. https://hooks.example.com/forgeflow");
        }
        if (url.length() > MAX_URL_LENGTH) {
            throw new ValidationException("notify.url", "notify.url must be at most " + MAX_URL_LENGTH
                    + " characters, was " + url.length());
        }
        if (url.chars().anyMatch(c -> Character.isISOControl(c) || Character.isWhitespace(c))) {
            throw new ValidationException("notify.url", "notify.url must not contain spaces or control characters: "
                    + "escape them (%20)");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new ValidationException("notify.url", "notify.url is not a valid URL (" + e.getReason()
                    + "): give an absolute http or https URL, e.g. https://hooks.example.com/forgeflow");
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme == null) {
            throw new ValidationException("notify.url", "notify.url must be an absolute URL starting with http:// "
                    + "or https://, e.g. https://hooks.example.com/forgeflow");
        }
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new ValidationException("notify.url", "notify.url must use http or https, not " + shown(scheme));
        }
        if (uri.getHost() == null) {
            throw new ValidationException("notify.url", "notify.url has no host: give an absolute http or https URL, "
                    + "e.g. https://hooks.example.com/forgeflow");
        }
        return url;
    }

    private static List<String> checkOn(List<String> on) {
        if (on == null) {
            return EVENTS;
        }
        if (on.isEmpty()) {
            throw new ValidationException("notify.on", "notify.on must name at least one event of "
                    + String.join(", ", EVENTS) + " (leave it out for all three; remove notify to send none)");
        }
        for (String event : on) {
            if (event == null || !EVENTS.contains(event)) {
                throw new ValidationException("notify.on", "notify.on has an unknown event '" + shown(event)
                        + "': use " + String.join(", ", EVENTS));
            }
        }
        List<String> out = new ArrayList<>();
        for (String event : EVENTS) {
            if (on.contains(event)) {
                out.add(event);
            }
        }
        return out;
    }

    private static String shown(String text) {
        if (text == null) {
            return "null";
        }
        String cut = text.length() > 40 ? text.substring(0, 40) + "…" : text;
        StringBuilder out = new StringBuilder();
        cut.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return out.toString();
    }
}
