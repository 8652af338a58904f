package io.forgeflow.adapter.rest;

import io.forgeflow.application.tenant.TenantControls;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.tenant.TenantSettings;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
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
 * {@code /api/tenants}: list tenants, set their weights in the claim's fair share and their cluster-wide limits
 * (API.md, "Tenants"). Cluster-wide: a tenant-bound token is refused here ({@link TenantRoutes}).
 */
@Path("/api/tenants")
@Produces(MediaType.APPLICATION_JSON)
public final class TenantResource {
    static final String EXAMPLE = "{\"weight\": 3, \"max_running\": 20, \"rate_limit\": {\"count\": 100, "
            + "\"per_seconds\": 60}}";
    static final Set<String> FIELDS = Set.of("weight", "max_running", "rate_limit");
    private static final Set<String> RATE_FIELDS = Set.of("count", "per_seconds");

    private final TenantControls controls;

    public TenantResource(TenantControls controls) {
        this.controls = Objects.requireNonNull(controls, "controls");
    }

    @GET
    public TenantsResponse list() {
        return new TenantsResponse(controls.list().stream().map(TenantResponse::of).collect(Collectors.toList()));
    }

    @GET
    @Path("{name}")
    public TenantResponse get(@PathParam("name") String name) {
        return TenantResponse.of(controls.get(name));
    }

    /**
     * Sets the weight and limits: each field given is applied (a null weight resets it to 1, a null limit clears
     * it), fields left out keep their value. An empty object changes nothing.
     */
    @PUT
    @Path("{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public TenantResponse configure(@PathParam("name") String name, InputStream body) {
        Map<String, Object> fields = JsonBody.readObject(body, EXAMPLE);
        for (String key : fields.keySet()) {
            if (!FIELDS.contains(key)) {
                throw new ValidationException(JsonBody.shorten(key), "unknown field '" + JsonBody.shorten(key)
                        + "': a tenant takes weight (a whole number from 1 to " + TenantSettings.MAX_WEIGHT
                        + ", or null for 1), max_running (a whole number, or null for no limit) and rate_limit "
                        + "({\"count\": 100, \"per_seconds\": 60}, or null for none), e.g. " + EXAMPLE);
            }
        }
        boolean setWeight = fields.containsKey("weight");
        boolean setMax = fields.containsKey("max_running");
        boolean setRate = fields.containsKey("rate_limit");
        Integer weight = setWeight ? whole(fields.get("weight"), "weight", 1, TenantSettings.MAX_WEIGHT) : null;
        Integer maxRunning = setMax ? whole(fields.get("max_running"), "max_running", 1,
                TenantSettings.MAX_RUNNING_LIMIT) : null;
        RateLimit rate = setRate ? rate(fields.get("rate_limit")) : null;
        TenantSettings settings = new TenantSettings(weight == null ? 1 : weight, maxRunning, rate);
        return TenantResponse.of(controls.configure(name, setWeight, setMax, setRate, settings));
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

    /** A whole number from min to max; null where the field allows it (weight: 1, max_running: no limit). */
    private static Integer whole(Object v, String field, int min, int max) {
        boolean nullable = field.equals("weight") || field.equals("max_running");
        String ifNull = field.equals("weight") ? ", or null for 1" : field.equals("max_running")
                ? ", or null for no limit" : "";
        if (v == null) {
            if (nullable) {
                return null;
            }
            throw new ValidationException(field, field + " is required: a whole number from " + min + " to " + max);
        }
        if (v instanceof Integer i) {
            if (i < min || i > max) {
                throw new ValidationException(field, field + " must be between " + min + " and " + max + ifNull
                        + ", was " + i);
            }
            return i;
        }
        if (v instanceof Long || v instanceof BigInteger) {
            throw new ValidationException(field, field + " must be between " + min + " and " + max + ifNull
                    + ", was " + JsonBody.shorten(v.toString()));
        }
        throw new ValidationException(field, field + " must be a whole number from " + min + " to " + max + ifNull
                + ", not " + JobSubmission.kind(v));
    }
}
