package io.forgeflow.adapter.rest;

import io.forgeflow.application.support.Paging;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.RunStatus;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The query string of a list request, checked: only the parameters the route takes, each at most once (a typo
 * such as {@code statuz=dead} would otherwise silently list everything). An empty value ({@code ?status=}) counts
 * as absent, so clients may fill in the API's URL templates literally. Every problem is a 400 naming the parameter.
 */
final class Query {
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
            if (e.getValue().size() > 1) {
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
