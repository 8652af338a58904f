package io.forgeflow.adapter.rest;

import io.forgeflow.application.workflow.QueryWorkflows;
import io.forgeflow.domain.port.Workflows;
import java.util.List;
import java.util.Map;

import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.job.CancelJob;
import io.forgeflow.application.job.DeleteJob;
import io.forgeflow.application.job.UpdateJob;
import io.forgeflow.application.job.PauseJob;
import io.forgeflow.application.job.QueryJobs;
import io.forgeflow.application.job.ResumeJob;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.job.TriggerJob;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.trace.TraceContext;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;

import java.io.InputStream;
import java.util.Objects;

/** {@code /api/jobs}: submit, list, read and control jobs (API.md, "Jobs"). */
@Path("/api/jobs")
@Produces(MediaType.APPLICATION_JSON)
public final class JobResource {
    /** W3C Trace Context headers; an invalid traceparent is ignored (a new trace starts), as the W3C says. */
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";
    private final SubmitJob submitJob;
    private final QueryJobs queryJobs;
    private final PauseJob pauseJob;
    private final ResumeJob resumeJob;
    private final CancelJob cancelJob;
    private final TriggerJob triggerJob;
    private final UpdateJob updateJob;
    private final DeleteJob deleteJob;
    private final QueryWorkflows workflows;

    public JobResource(SubmitJob submitJob, QueryJobs queryJobs, PauseJob pauseJob, ResumeJob resumeJob,
                       CancelJob cancelJob, TriggerJob triggerJob, UpdateJob updateJob, DeleteJob deleteJob) {
        this(submitJob, queryJobs, pauseJob, resumeJob, cancelJob, triggerJob, updateJob, deleteJob, null);
    }

    /** @param workflows the jobs' places in workflows (null: a node without them shows none) */
    public JobResource(SubmitJob submitJob, QueryJobs queryJobs, PauseJob pauseJob, ResumeJob resumeJob,
                       CancelJob cancelJob, TriggerJob triggerJob, UpdateJob updateJob, DeleteJob deleteJob,
                       QueryWorkflows workflows) {
        this.workflows = workflows;
        this.submitJob = Objects.requireNonNull(submitJob, "submitJob");
        this.queryJobs = Objects.requireNonNull(queryJobs, "queryJobs");
        this.pauseJob = Objects.requireNonNull(pauseJob, "pauseJob");
        this.resumeJob = Objects.requireNonNull(resumeJob, "resumeJob");
        this.cancelJob = Objects.requireNonNull(cancelJob, "cancelJob");
        this.triggerJob = Objects.requireNonNull(triggerJob, "triggerJob");
        this.updateJob = Objects.requireNonNull(updateJob, "updateJob");
        this.deleteJob = Objects.requireNonNull(deleteJob, "deleteJob");
    }

    /** 201 with the new job, or 200 with the existing one when its idempotency key is replayed with the same body. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response submit(InputStream body, @Context UriInfo uri, @Context SecurityContext security,
                           @Context ContainerRequestContext request,
                           @HeaderParam(TRACEPARENT) String traceparent, @HeaderParam(TRACESTATE) String tracestate) {
        JobSubmission.WithParents submission = JobSubmission.readWithParents(body);
        JobDraft draft = submission.draft();
        String tenant = Tenancy.of(request).forSubmission(submission.tenant());
        checkSubmitScope(security, draft.executor());
        JobCreation creation = submitJob.submit(tenant, draft, submission.dependencies(),
                TraceContext.parse(traceparent, tracestate));
        JobResponse answer = JobResponse.of(creation.job()).withWaitingFor(waitingFor(creation.job()));
        // a job just created without parents has no workflow (no parents, no batch, no children yet): no query
        JobResponse job = (creation.created() && submission.dependencies().isEmpty()
                ? answer.withWorkflow(null, false) : withWorkflow(answer)).withDebouncedInto(creation.debouncedInto());
        if (!creation.created()) {
            return Response.ok(job).build();
        }
        return Response.created(uri.getBaseUriBuilder().path("api/jobs").path(job.id()).build()).entity(job).build();
    }

    /**
     * A token with {@code submit:<executor>} scopes only may submit jobs to those executors: 403 naming the scope it
     * lacks otherwise. Without tokens (no principal) anything goes, as on every route.
     */
    static void checkSubmitScope(SecurityContext security, String executor) {
        if (security == null || !(security.getUserPrincipal() instanceof ApiPrincipal principal)
                || principal.maySubmit(executor)) {
            return;
        }
        String scope = Scope.SUBMIT.wireName() + ":" + executor;
        throw new ApiException(403, "this token lacks the '" + scope + "' scope that submitting " + executor
                + " jobs needs (it may submit to " + String.join(", ", principal.submitExecutors()) + "): use a token "
                + "with " + scope + ", submit or admin (" + ApiTokens.VARIABLE + ")", "executor");
    }

    /**
     * Newest first; the filters {@code status}, {@code queue}, {@code label} (repeatable), {@code name_prefix}, and
     * {@code limit} (1–500, default 50) and {@code cursor} are optional. Payloads over 64 KiB are left out
     * ({@code payload_truncated}); the page may end early at the byte budget (API.md).
     */
    @GET
    public PageResponse<JobResponse> list(@Context UriInfo uri, @Context ContainerRequestContext request) {
        Query q = Query.of(uri, "status", "queue", "label", "name_prefix", "tenant", "limit", "cursor");
        io.forgeflow.domain.port.JobFilter filter = new io.forgeflow.domain.port.JobFilter(q.jobStatus(), q.queue(),
                q.labels(), q.namePrefix(), Tenancy.of(request).forList(q.get("tenant")));
        HandlerWaits.Snapshot waits = queryJobs.waits().snapshot();
        io.forgeflow.domain.port.Page<io.forgeflow.domain.port.ListedJob> page =
                queryJobs.listForDisplayMatching(filter, q.limit(), q.cursor());
        Map<String, Workflows.JobLinks> links = workflows == null ? Map.of()
                : workflows.of(page.items().stream().map(l -> l.job().id()).toList());
        return PageResponse.of(page, listed -> JobResponse.of(listed).withWaitingFor(waits.of(listed.job()))
                .withWorkflow(links.get(listed.job().id().toLowerCase(java.util.Locale.ROOT)), false));
    }

    @GET
    @Path("{id}")
    public JobResponse get(@PathParam("id") String id) {
        Job job = queryJobs.get(wellFormed(id));
        JobResponse response = JobResponse.of(job).withWaitingFor(waitingFor(job));
        return workflows == null ? response.withWorkflow(null, true)
                : response.withWorkflow(workflows.links(job.id()).orElse(null), true);
    }

    /** A job answer with its parents, policy and batch. */
    private JobResponse withWorkflow(JobResponse response) {
        if (workflows == null) {
            return response;
        }
        return response.withWorkflow(workflows.of(List.of(response.id()))
                .get(response.id().toLowerCase(java.util.Locale.ROOT)), false);
    }

    /**
     * Changes the fields the body gives (API.md, "Edit and delete"); {@code ?pending=keep} leaves the pending runs as
     * they are. A token with {@code submit:<executor>} scopes may change jobs of those executors only.
     */
    @PATCH
    @Path("{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    public JobResponse update(@PathParam("id") String id, InputStream body, @Context UriInfo uri,
                              @Context SecurityContext security) {
        // the body first: a refusal sent before the body is read leaves it unread, and Jetty then closes the
        // connection under a client that sends its body after the head (java.net.http does)
        io.forgeflow.domain.job.JobPatch patch = JobSubmission.readPatch(body);
        Query q = Query.of(uri, "pending");
        String pending = q.get("pending");
        if (pending != null && !pending.equals("keep") && !pending.equals("follow")) {
            throw new io.forgeflow.domain.error.InvalidQueryException("pending", "pending must be keep (pending runs "
                    + "keep their priority, queue and payload) or follow (the default: they take the new ones), was '"
                    + JsonBody.shorten(pending) + "'");
        }
        io.forgeflow.domain.job.JobSpec current = queryJobs.get(wellFormed(id)).spec();
        checkSubmitScope(security, current.executor());
        return withWorkflow(JobResponse.of(updateJob.update(id, unmasked(patch, current), "keep".equals(pending))));
    }

    /** The patch with the masked secrets of its payload given their stored values ({@link io.forgeflow.domain.job.PayloadRedaction#restore}). */
    private static io.forgeflow.domain.job.JobPatch unmasked(io.forgeflow.domain.job.JobPatch patch,
                                                            io.forgeflow.domain.job.JobSpec current) {
        io.forgeflow.domain.job.JobDraft v = patch.values();
        java.util.Map<String, Object> payload = io.forgeflow.domain.job.PayloadRedaction.restore(v.payload(), current.payload());
        if (!patch.gives("payload") || payload == v.payload()) {
            return patch;
        }
        return new io.forgeflow.domain.job.JobPatch(v.withPayload(payload), patch.given());
    }

    /**
     * 200 with the tombstone ({@code status: deleted}); 204 with {@code ?purge=true} (the job and its runs are gone).
     * 409 {@code job_running} while a run of it is running, unless {@code ?cancel_running=true}.
     */
    @DELETE
    @Path("{id}")
    public Response delete(@PathParam("id") String id, @Context UriInfo uri) {
        Query q = Query.of(uri, "cancel_running", "purge");
        boolean cancelRunning = q.flag("cancel_running");
        boolean purge = q.flag("purge");
        return deleteJob.delete(wellFormed(id), cancelRunning, purge)
                .map(job -> Response.ok(withWorkflow(JobResponse.of(job))).build())
                .orElseGet(() -> Response.noContent().build());
    }

    /**
     * Pauses the job; the optional body {@code {"note": "..."}} says why ({@code paused_note}), and the token's name is
     * kept as {@code paused_by} (null without tokens).
     */
    @POST
    @Path("{id}/pause")
    public JobResponse pause(@PathParam("id") String id, InputStream body, @Context SecurityContext security) {
        String note = JobSubmission.readPauseNote(body);
        String by = security == null || security.getUserPrincipal() == null ? null
                : security.getUserPrincipal().getName();
        return withWorkflow(JobResponse.of(pauseJob.pause(wellFormed(id), note, by)));
    }

    @POST
    @Path("{id}/resume")
    public JobResponse resume(@PathParam("id") String id) {
        Job job = resumeJob.resume(wellFormed(id));
        return withWorkflow(JobResponse.of(job).withWaitingFor(waitingFor(job)));
    }

    @POST
    @Path("{id}/cancel")
    public JobResponse cancel(@PathParam("id") String id) {
        Job job = cancelJob.cancel(wellFormed(id));
        return withWorkflow(JobResponse.of(job));
    }

    /** 201 with the new run, due now. */
    @POST
    @Path("{id}/trigger")
    public Response trigger(@PathParam("id") String id, @Context UriInfo uri,
                            @HeaderParam(TRACEPARENT) String traceparent, @HeaderParam(TRACESTATE) String tracestate) {
        Run run = triggerJob.trigger(wellFormed(id), TraceContext.parse(traceparent, tracestate));
        return Response.created(uri.getBaseUriBuilder().path("api/runs").path(run.id()).build())
                .entity(RunResponse.of(run).withWaitingFor(queryJobs.waits().snapshot().of(run))).build();
    }

    private String waitingFor(Job job) {
        return queryJobs.waits().snapshot().of(job);
    }

    /** An id that cannot name a job is simply not found (ids are opaque to clients). */
    static String wellFormed(String id) {
        if (!Ids.isWellFormed(id)) {
            throw new NotFoundException("job", JsonBody.shorten(id));
        }
        return id;
    }
}
