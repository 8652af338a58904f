package io.forgeflow.adapter.rest;

import io.forgeflow.application.support.Paging;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.Labels;
import io.forgeflow.domain.job.QueueNames;
import io.forgeflow.domain.run.RunStatus;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The query string of a list request, checked: only the parameters the route takes, each at most once (a typo
 * such as {@code statuz=dead} would otherwise silently list everything). An empty value ({@code ?status=}) counts
 * as absent, so clients may fill in the API's URL templates literally. A malformed query, limit, cursor, status or
 * job id is a 400 naming the parameter; a bad value of the other filters ({@code queue}, {@code label},
 * {@code name_prefix}, the times) is a 422 naming it, as a bad field of a body is.
 */
final class Query {
    /** Parameters that may be given more than once (every one applies). */
    private static final Set<String> REPEATABLE = Set.of("label");
    private static final String TIME_EXAMPLE = "an RFC 3339 time such as \"2026-03-08T00:00:00Z\" (percent-encode a "
            + "'+' offset as %2B)";
    private final MultivaluedMap<String, String> params;

    private Query(MultivaluedMap<String, String> params) {
        this.params = params;
    }

    static Query of(UriInfo uri, String... allowed) {
        MultivaluedMap<String, String> params;
        try {
            params = uri.getQueryParameters(true);
        } catch (RuntimeException e) {
            throw new InvalidQueryException(null, "the query string is malformed (" + e.getMessage()
                    + "): percent-encode parameter values");
        }
        Set<String> names = Set.of(allowed);
        for (Map.Entry<String, List<String>> e : params.entrySet()) {
            String name = e.getKey();
            if (name.isEmpty()) {
                continue;
            }
            if (!names.contains(name)) {
                throw new InvalidQueryException(JsonBody.shorten(name), "unknown query parameter '"
                        + JsonBody.shorten(name) + "': this list takes " + String.join(", ", new TreeSet<>(names)));
            }
            if (e.getValue().size() > 1 && !REPEATABLE.contains(name)) {
                throw new InvalidQueryException(name, name + " is given " + e.getValue().size() + " times: give it once");
            }
        }
        return new Query(params);
    }

    /** The value, or null when absent or empty. */
    String get(String name) {
        String v = params.getFirst(name);
        return v == null || v.isEmpty() ? null : v;
    }

    /** {@code limit}: 1 to 500, default 50. */
    int limit() {
        String raw = get("limit");
        if (raw == null) {
            return Paging.DEFAULT_LIMIT;
        }
        String how = "limit must be a whole number from 1 to " + Paging.MAX_LIMIT + " (default "
                + Paging.DEFAULT_LIMIT + "), was '" + JsonBody.shorten(raw) + "'";
        if (!raw.matches("[+-]?[0-9]{1,18}")) {
            throw new InvalidQueryException("limit", how);
        }
        long limit = Long.parseLong(raw);
        if (limit < 1 || limit > Paging.MAX_LIMIT) {
            throw new InvalidQueryException("limit", how);
        }
        return (int) limit;
    }

    /** A boolean parameter: {@code true} or {@code false}, false when absent. */
    boolean flag(String name) {
        String raw = get(name);
        if (raw == null || raw.equals("false")) {
            return false;
        }
        if (raw.equals("true")) {
            return true;
        }
        throw new InvalidQueryException(name, name + " must be true or false, was '" + JsonBody.shorten(raw) + "'");
    }

    String cursor() {
        return get("cursor");
    }

    JobStatus jobStatus() {
        String raw = get("status");
        try {
            return raw == null ? null : JobStatus.fromWire(raw);
        } catch (IllegalArgumentException e) {
            throw new InvalidQueryException("status", "status must be one of active, paused, cancelled, completed, "
                    + "deleted, was '" + JsonBody.shorten(raw) + "'");
        }
    }

    RunStatus runStatus() {
        String raw = get("status");
        try {
            return raw == null ? null : RunStatus.fromWire(raw);
        } catch (IllegalArgumentException e) {
            throw new InvalidQueryException("status", "status must be one of pending, running, succeeded, dead, "
                    + "cancelled, was '" + JsonBody.shorten(raw) + "'");
        }
    }

    /** {@code queue}: a queue name (422 naming {@code queue} when it cannot be one). */
    String queue() {
        String raw = get("queue");
        return raw == null ? null : QueueNames.require("queue", raw);
    }

    /**
     * {@code label=key:value}, repeatable: every one must match. A key that cannot be a label key, a missing
     * {@code :}, or one key given twice is a 422 naming {@code label}.
     */
    Map<String, String> labels() {
        List<String> raw = params.get("label");
        Map<String, String> labels = new java.util.TreeMap<>();
        if (raw == null) {
            return labels;
        }
        for (String one : raw) {
            if (one.isEmpty()) {
                continue;
            }
            int colon = one.indexOf(':');
            String key = colon < 0 ? one : one.substring(0, colon);
            if (colon < 0 || !Labels.isKey(key)) {
                throw new ValidationException("label", "label must be key:value, such as label=team:billing (keys are "
                        + "1 to " + Labels.MAX_KEY_LENGTH + " characters of a-z, 0-9, '_', '.' or '-'), was '"
                        + JsonBody.shorten(one) + "'");
            }
            String value = one.substring(colon + 1);
            Labels.checkValue("label", value);
            if (labels.containsKey(key)) {
                throw new ValidationException("label", "label gives the key '" + key + "' twice: a label has one "
                        + "value, so no job or run could match both");
            }
            labels.put(key, value);
        }
        return labels;
    }

    /** {@code name_prefix}: 1 to 200 characters, no control characters (422 naming it). */
    String namePrefix() {
        String raw = get("name_prefix");
        if (raw == null) {
            return null;
        }
        if (raw.length() > JobDraft.MAX_NAME_LENGTH || raw.chars().anyMatch(Character::isISOControl)) {
            throw new ValidationException("name_prefix", "name_prefix must be 1 to " + JobDraft.MAX_NAME_LENGTH
                    + " characters without control characters: the start of the names to list, such as \"nightly-\"");
        }
        return raw;
    }

    /** An RFC 3339 time parameter, or null; a 422 naming it when it is not one. */
    Instant time(String name) {
        String raw = get(name);
        if (raw == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(raw.trim()).toInstant();
        } catch (DateTimeException e) {
            throw new ValidationException(name, name + " must be " + TIME_EXAMPLE + ", was '" + JsonBody.shorten(raw)
                    + "'");
        }
    }

    /** {@code job_id}: a job id as the API returned it. */
    String jobId() {
        String raw = get("job_id");
        if (raw != null && !Ids.isWellFormed(raw)) {
            throw new InvalidQueryException("job_id", "job_id must be a job id as returned by the API, such as "
                    + "\"0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b\", was '" + JsonBody.shorten(raw) + "'");
        }
        return raw;
    }
}
