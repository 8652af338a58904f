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
        Integer weight = setWeight ? LimitFields.whole(fields.get("weight"), "weight", 1, TenantSettings.MAX_WEIGHT, "1") : null;
        Integer maxRunning = setMax ? LimitFields.whole(fields.get("max_running"), "max_running", 1,
                TenantSettings.MAX_RUNNING_LIMIT, "no limit") : null;
        RateLimit rate = setRate ? LimitFields.rate(fields.get("rate_limit")) : null;
        TenantSettings settings = new TenantSettings(weight == null ? 1 : weight, maxRunning, rate);
        return TenantResponse.of(controls.configure(name, setWeight, setMax, setRate, settings));
    }
}
