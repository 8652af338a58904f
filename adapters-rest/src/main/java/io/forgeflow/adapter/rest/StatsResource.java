package io.forgeflow.adapter.rest;

import io.forgeflow.application.run.QueryRuns;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import java.util.Objects;

/** {@code /api/stats}: how many runs are in each status. */
@Path("/api/stats")
@Produces(MediaType.APPLICATION_JSON)
public final class StatsResource {
    private final QueryRuns queryRuns;

    public StatsResource(QueryRuns queryRuns) {
        this.queryRuns = Objects.requireNonNull(queryRuns, "queryRuns");
    }

    /** Of the request's tenant, or of {@code ?tenant=} (README "Tenants"); of every tenant when it names none. */
    @GET
    public StatsResponse stats(@Context UriInfo uri, @Context ContainerRequestContext request) {
        Query q = Query.of(uri, "tenant");
        return StatsResponse.of(queryRuns.stats(Tenancy.of(request).forList(q.get("tenant"))));
    }
}
