package io.forgeflow.adapter.rest;

import io.forgeflow.application.queue.QueueControls;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.RateLimit;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.io.InputStream;
import java.math.BigInteger;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code /api/queues}: list queues, set their cluster-wide limits, pause and resume them (API.md, "Queues").
 */
@Path("/api/queues")
@Produces(MediaType.APPLICATION_JSON)
public final class QueueResource {
    static final String EXAMPLE = "{\"max_running\": 2, \"rate_limit\": {\"count\": 100, \"per_seconds\": 60}}";
    static final Set<String> FIELDS = Set.of("max_running", "rate_limit");
    private static final Set<String> RATE_FIELDS = Set.of("count", "per_seconds");

    private final QueueControls controls;

    public QueueResource(QueueControls controls) {
        this.controls = Objects.requireNonNull(controls, "controls");
    }

    @GET
    public QueuesResponse list() {
        return new QueuesResponse(controls.list().stream().map(QueueResponse::of).collect(Collectors.toList()));
    }

    @GET
    @Path("{name}")
    public QueueResponse get(@PathParam("name") String name) {
        return QueueResponse.of(controls.get(name));
    }

    /**
     * Sets limits: each field given is applied (null clears it), fields left out keep their value. An empty object
     * changes nothing.
     */
    @PUT
    @Path("{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public QueueResponse configure(@PathParam("name") String name, InputStream body) {
        Map<String, Object> fields = JsonBody.readObject(body, EXAMPLE);
        for (String key : fields.keySet()) {
            if (!FIELDS.contains(key)) {
                throw new ValidationException(JsonBody.shorten(key), "unknown field '" + JsonBody.shorten(key)
                        + "': a queue takes max_running (a whole number, or null for no limit) and rate_limit "
                        + "({\"count\": 100, \"per_seconds\": 60}, or null for none), e.g. " + EXAMPLE);
            }
        }
        boolean setMax = fields.containsKey("max_running");
        boolean setRate = fields.containsKey("rate_limit");
        Integer maxRunning = setMax ? whole(fields.get("max_running"), "max_running", 1, QueueLimits.MAX_RUNNING_LIMIT)
                : null;
        RateLimit rate = setRate ? rate(fields.get("rate_limit")) : null;
        return QueueResponse.of(controls.configure(name, setMax, setRate, new QueueLimits(maxRunning, rate)));
    }

    @POST
    @Path("{name}/pause")
    public QueueResponse pause(@PathParam("name") String name) {
        return QueueResponse.of(controls.pause(name));
    }

    @POST
    @Path("{name}/resume")
    public QueueResponse resume(@PathParam("name") String name) {
        return QueueResponse.of(controls.resume(name));
    }

    @SuppressWarnings("unchecked")
    private static RateLimit rate(Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map)) {
            throw new ValidationException("rate_limit", "rate_limit must be an object such as "
                    + "{\"count\": 100, \"per_seconds\": 60}, or null to clear it");
        }
        Map<String, Object> m = (Map<String, Object>) value;
        for (String key : m.keySet()) {
            if (!RATE_FIELDS.contains(key)) {
                throw new ValidationException("rate_limit." + JsonBody.shorten(key), "unknown field '"
                        + JsonBody.shorten(key) + "' in rate_limit: give count and per_seconds, e.g. "
                        + "{\"count\": 100, \"per_seconds\": 60}");
            }
        }
        if (!m.containsKey("count") || !m.containsKey("per_seconds")) {
            throw new ValidationException(m.containsKey("count") ? "rate_limit.per_seconds" : "rate_limit.count",
                    "rate_limit needs both count and per_seconds, e.g. {\"count\": 100, \"per_seconds\": 60}");
        }
        int count = whole(m.get("count"), "rate_limit.count", 1, RateLimit.MAX_COUNT);
        int per = whole(m.get("per_seconds"), "rate_limit.per_seconds", 1, RateLimit.MAX_PER_SECONDS);
        return new RateLimit(count, per);
    }

    private static Integer whole(Object v, String field, int min, int max) {
        if (v == null) {
            if (field.equals("max_running")) {
                return null;
            }
            throw new ValidationException(field, field + " is required: a whole number from " + min + " to " + max);
        }
        if (v instanceof Integer i) {
            if (i < min || i > max) {
                throw new ValidationException(field, field + " must be between " + min + " and " + max + ", was " + i);
            }
            return i;
        }
        if (v instanceof Long || v instanceof BigInteger) {
            throw new ValidationException(field, field + " must be between " + min + " and " + max + ", was "
                    + JsonBody.shorten(v.toString()));
        }
        throw new ValidationException(field, field + " must be a whole number from " + min + " to " + max
                + (field.equals("max_running") ? ", or null for no limit" : "") + ", not " + JobSubmission.kind(v));
    }
}
