package io.forgeflow.adapter.rest;

import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.run.CancelRun;
import io.forgeflow.application.run.QueryRuns;
import io.forgeflow.application.run.QueryRuns.RunDetail;
import io.forgeflow.application.run.RequeueRun;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.run.Run;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import java.util.Objects;

/** {@code /api/runs}: list and read runs, requeue dead-letters, cancel (API.md, "Runs"). */
@Path("/api/runs")
@Produces(MediaType.APPLICATION_JSON)
public final class RunResource {
    private final QueryRuns queryRuns;
    private final CancelRun cancelRun;
    private final RequeueRun requeueRun;

    public RunResource(QueryRuns queryRuns, CancelRun cancelRun, RequeueRun requeueRun) {
        this.queryRuns = Objects.requireNonNull(queryRuns, "queryRuns");
        this.cancelRun = Objects.requireNonNull(cancelRun, "cancelRun");
        this.requeueRun = Objects.requireNonNull(requeueRun, "requeueRun");
    }

    /**
     * Newest first; the filters {@code job_id}, {@code status} ({@code dead}: the dead-letter queue), {@code queue},
     * {@code label} (repeatable), {@code scheduled_after}, {@code scheduled_before}, {@code finished_after}, and
     * {@code limit}, {@code cursor}.
     */
    @GET
    public PageResponse<RunResponse> list(@Context UriInfo uri,
                                          @Context jakarta.ws.rs.container.ContainerRequestContext request) {
        Query q = Query.of(uri, "job_id", "status", "queue", "label", "scheduled_after", "scheduled_before",
                "finished_after", "tenant", "limit", "cursor");
        io.forgeflow.domain.port.RunFilter filter = new io.forgeflow.domain.port.RunFilter(q.jobId(), q.runStatus(),
                q.queue(), q.labels(), q.time("scheduled_after"), q.time("scheduled_before"), q.time("finished_after"),
                Tenancy.of(request).forList(q.get("tenant")));
        HandlerWaits.Snapshot waits = queryRuns.waits().snapshot();
        return PageResponse.of(queryRuns.listForDisplayMatching(filter, q.limit(), q.cursor()),
                listed -> RunResponse.of(listed).withWaitingFor(waits.of(listed.run())));
    }

    /** The run with its attempts, oldest first. */
    @GET
    @Path("{id}")
    public RunResponse get(@PathParam("id") String id) {
        RunDetail detail = queryRuns.get(wellFormed(id));
        return RunResponse.of(detail.run(), detail.attempts()).withWaitingFor(waitingFor(detail.run()));
    }

    @POST
    @Path("{id}/requeue")
    public RunResponse requeue(@PathParam("id") String id) {
        Run run = requeueRun.requeue(wellFormed(id));
        return RunResponse.of(run).withWaitingFor(waitingFor(run));
    }

    @POST
    @Path("{id}/cancel")
    public RunResponse cancel(@PathParam("id") String id) {
        return RunResponse.of(cancelRun.cancel(wellFormed(id)));
    }

    private String waitingFor(Run run) {
        return queryRuns.waits().snapshot().of(run);
    }

    private static String wellFormed(String id) {
        if (!Ids.isWellFormed(id)) {
            throw new NotFoundException("run", JsonBody.shorten(id));
        }
        return id;
    }
}
