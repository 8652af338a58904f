package io.forgeflow.admin.cluster;

import io.forgeflow.client.Backfill;
import io.forgeflow.client.EventSubscription;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.Node;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import io.forgeflow.client.RunEventListener;
import io.forgeflow.client.ScheduledFire;
import io.forgeflow.client.Stats;
import io.forgeflow.client.SubmitResult;

import java.util.List;

/**
 * The cluster as the view models see it: one blocking method per thing they do. Implementations throw
 * {@link io.forgeflow.client.ForgeFlowApiException} for errors the server answers and
 * {@link io.forgeflow.client.ForgeFlowUnavailableException} when it cannot be reached. View models call these only
 * through {@link io.forgeflow.admin.support.Async}, never on the UI thread.
 */
public interface ClusterClient extends AutoCloseable {

    /** The server URL, for display (never contains the token). */
    String serverUrl();

    /** The tenant every call acts in ({@code X-ForgeFlow-Tenant}), or null: none, so a cluster-wide token sees all. */
    String tenant();

    /**
     * A client for the same server and token acting in tenant (null or blank: none). Closing it closes this one too:
     * the console holds one client at a time.
     */
    ClusterClient inTenant(String tenant);

    Stats stats();

    List<Node> nodes();

    /** One page of jobs, newest first, filtered by the server ({@code GET /api/jobs} with the query's parameters). */
    Page<Job> jobs(JobQuery query, String cursor, int limit);

    /** One page of jobs, newest first; status null means all. */
    default Page<Job> jobs(String status, String cursor, int limit) {
        return jobs(JobQuery.status(status), cursor, limit);
    }

    Job job(String id);

    SubmitResult submit(JobRequest request);

    /**
     * Submits a job with parents ({@code depends_on}, {@code on_parent_failure}); a 422 naming {@code depends_on} says
     * which parent id is refused. Without parents it is {@link #submit(JobRequest)}.
     */
    SubmitResult submit(JobRequest request, Parents parents);

    /** The job with its workflow: parent ids, policy, batch, parents and children ({@code GET /api/jobs/{id}}). */
    JobWorkflow workflow(String jobId);

    /** A batch's progress ({@code GET /api/batches/{id}}; unknown id: 404). */
    BatchProgress batch(String batchId);

    /** The next {@code count} fire times of a cron expression in a zone, as the server's scheduler computes them. */
    List<ScheduledFire> previewSchedule(String cronExpr, String timezone, int count);

    Job pause(String jobId);

    /** Pauses with a note saying why (null or blank: none); the server keeps the token's name as paused_by. */
    default Job pause(String jobId, String note) {
        return pause(jobId);
    }

    Job resume(String jobId);

    Job cancel(String jobId);

    /**
     * Deletes the job ({@code DELETE /api/jobs/{id}}) and answers its tombstone; while a run of it is running the
     * server answers 409 {@code job_running}, unless cancelRunning asks it to cancel that run first.
     */
    Job delete(String jobId, boolean cancelRunning);

    Run trigger(String jobId);

    /**
     * Changes the fields the update sets ({@code PATCH /api/jobs/{id}}; a 422 names the field at fault, a 409 says the
     * job can no longer change); keepPending sends {@code ?pending=keep}. Answers the changed job.
     */
    Job update(String jobId, JobUpdate update, boolean keepPending);

    /**
     * One run per tick of a recurring job's schedule from {@code from} to {@code to}, both included, none for a tick
     * that has one ({@code POST /api/jobs/{id}/backfill}); overlap allow, skip or queue_one. A 422 names
     * {@code from}, {@code to} (also for more than 10,000 ticks) or {@code overlap}; a one-off job is a 409.
     */
    Backfill backfill(String jobId, java.time.Instant from, java.time.Instant to, String overlap);

    /**
     * A backfill as it stands now ({@code GET /api/jobs/{id}/backfill/{backfill_id}}): its runs counted by status,
     * {@code done} once none is pending, waiting or running. A 404 once retention removed it.
     */
    Backfill backfillProgress(String jobId, String backfillId);

    /** One page of runs, newest first, filtered by the server ({@code GET /api/runs} with the query's parameters). */
    Page<Run> runs(RunQuery query, String cursor, int limit);

    /** One page of runs, newest first; jobId null means across jobs, status null means all. */
    default Page<Run> runs(String jobId, String status, String cursor, int limit) {
        return runs(RunQuery.of(jobId, status), cursor, limit);
    }

    /** The trace the server sent with this run ({@link RunTrace#NONE} when none). Reads no network. */
    RunTrace trace(Run run);

    /** One run with its attempts. */
    Run run(String id);

    Run requeue(String runId);

    Run cancelRun(String runId);

    /**
     * Every known tenant with its weight, limits and load ({@code GET /api/tenants}). Cluster-wide: a tenant-bound
     * token gets 403 {@code tenant_forbidden}.
     */
    List<io.forgeflow.client.Tenant> tenants();

    /**
     * Sets what the update sets and keeps the rest ({@code PUT /api/tenants/{name}}, admin scope); a 422 names the
     * field at fault ({@code weight}, {@code max_running}, {@code rate_limit.count} ...). Answers the tenant.
     */
    io.forgeflow.client.Tenant configureTenant(String name, io.forgeflow.client.TenantUpdate update);

    /**
     * The queues of the tenant this client acts in, by name ({@code GET /api/queues}); without a tenant, a cluster-wide
     * token gets every tenant's, by tenant and name. Each carries its tenant.
     */
    List<io.forgeflow.client.Queue> queues();

    /**
     * Sets the limits the update sets (null clears one) and keeps the rest ({@code PUT /api/queues/{name}}, operate
     * scope) on tenant's queue of that name (tenant null: the one this client acts in); a 422 names the field at fault
     * ({@code max_running}, {@code rate_limit.count} ...). Answers the queue.
     */
    io.forgeflow.client.Queue configureQueue(String tenant, String name, io.forgeflow.client.QueueUpdate update);

    /** No run of tenant's queue starts on any node until it is resumed ({@code POST .../pause}); tenant as above. */
    io.forgeflow.client.Queue pauseQueue(String tenant, String name);

    /** Tenant's queue starts runs again ({@code POST /api/queues/{name}/resume}); tenant as above. */
    io.forgeflow.client.Queue resumeQueue(String tenant, String name);

    /** The live event stream; listener callbacks arrive on a background thread. */
    EventSubscription events(RunEventListener listener);

    @Override
    void close();
}
