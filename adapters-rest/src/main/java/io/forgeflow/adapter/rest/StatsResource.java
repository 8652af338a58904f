package io.forgeflow.adapter.rest;

import io.forgeflow.application.run.QueryRuns;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Objects;

/** {@code /api/stats}: how many runs are in each status. */
@Path("/api/stats")
@Produces(MediaType.APPLICATION_JSON)
public final class StatsResource {
    private final QueryRuns queryRuns;

    public StatsResource(QueryRuns queryRuns) {
        this.queryRuns = Objects.requireNonNull(queryRuns, "queryRuns");
    }

    @GET
    public StatsResponse stats() {
        return StatsResponse.of(queryRuns.stats());
    }
}
