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
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import java.io.InputStream;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code /api/queues}: list queues, set their cluster-wide limits, pause and resume them (API.md, "Queues"). A queue is
 * a tenant's: the request's (README "Tenants"). A list of a cluster-wide request without one shows every tenant's (or
 * {@code ?tenant=}'s); a single queue without one is the default tenant's.
 */
@Path("/api/queues")
@Produces(MediaType.APPLICATION_JSON)
public final class QueueResource {
    static final String EXAMPLE = "{\"max_running\": 2, \"rate_limit\": {\"count\": 100, \"per_seconds\": 60}}";
    static final Set<String> FIELDS = Set.of("max_running", "rate_limit");

    private final QueueControls controls;

    public QueueResource(QueueControls controls) {
        this.controls = Objects.requireNonNull(controls, "controls");
    }

    @GET
    public QueuesResponse list(@Context UriInfo uri, @Context ContainerRequestContext request) {
        String tenant = Tenancy.of(request).forList(Query.of(uri, "tenant").get("tenant"));
        return new QueuesResponse(controls.list(tenant).stream().map(QueueResponse::of).collect(Collectors.toList()));
    }

    @GET
    @Path("{name}")
    public QueueResponse get(@PathParam("name") String name, @Context ContainerRequestContext request) {
        return QueueResponse.of(controls.get(tenantOf(request), name));
    }

    /**
     * Sets limits: each field given is applied (null clears it), fields left out keep their value. An empty object
     * changes nothing.
     */
    @PUT
    @Path("{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    public QueueResponse configure(@PathParam("name") String name, InputStream body,
                                   @Context ContainerRequestContext request) {
        String tenant = tenantOf(request);
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
        Integer maxRunning = setMax ? LimitFields.whole(fields.get("max_running"), "max_running", 1,
                QueueLimits.MAX_RUNNING_LIMIT, "no limit") : null;
        RateLimit rate = setRate ? LimitFields.rate(fields.get("rate_limit")) : null;
        return QueueResponse.of(controls.configure(tenant, name, setMax, setRate, new QueueLimits(maxRunning, rate)));
    }

    @POST
    @Path("{name}/pause")
    public QueueResponse pause(@PathParam("name") String name, @Context ContainerRequestContext request) {
        return QueueResponse.of(controls.pause(tenantOf(request), name));
    }

    @POST
    @Path("{name}/resume")
    public QueueResponse resume(@PathParam("name") String name, @Context ContainerRequestContext request) {
        return QueueResponse.of(controls.resume(tenantOf(request), name));
    }

    /** The tenant whose queue a route names: the request's, else the default. */
    private static String tenantOf(ContainerRequestContext request) {
        return Tenancy.of(request).forSubmission(null);
    }
}
