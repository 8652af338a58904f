package io.forgeflow.admin.cluster;

import io.forgeflow.client.Batch;
import io.forgeflow.client.EventSubscription;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobFilter;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.LinkedJob;
import io.forgeflow.client.RunFilter;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.Node;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import io.forgeflow.client.RunEventListener;
import io.forgeflow.client.ScheduledFire;
import io.forgeflow.client.Stats;
import io.forgeflow.client.SubmitResult;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** {@link ClusterClient} over HTTP: a thin adapter on the project's one REST client, {@link ForgeFlowClient}. */
public final class RestClusterClient implements ClusterClient {
    private final ForgeFlowClient client;
    /** The client whose connections this one shares (closed with it), or null when it is this one's own. */
    private final ForgeFlowClient owner;

    /** Over a client built elsewhere. */
    public RestClusterClient(ForgeFlowClient client) {
        this(client, null);
    }

    private RestClusterClient(ForgeFlowClient client, ForgeFlowClient owner) {
        this.client = Objects.requireNonNull(client, "client");
        this.owner = owner;
    }

    /**
     * A client with the console's timeouts: 3 s to connect and 15 s for a call, so a hung server shows an error
     * instead of a spinner forever; the event stream reconnects every 2 s.
     */
    public static RestClusterClient open(String serverUrl, String token) {
        return new RestClusterClient(ForgeFlowClient.builder(serverUrl).token(token)
                .connectTimeout(Duration.ofSeconds(3)).readTimeout(Duration.ofSeconds(15))
                .callTimeout(Duration.ofSeconds(15)).eventRetry(Duration.ofSeconds(2)).build());
    }

    @Override
    public String serverUrl() {
        return client.baseUrl();
    }

    @Override
    public String tenant() {
        return client.tenant();
    }

    @Override
    public ClusterClient inTenant(String tenant) {
        return new RestClusterClient(client.withTenant(tenant), owner != null ? owner : client);
    }

    @Override
    public Stats stats() {
        return client.stats();
    }

    @Override
    public List<Node> nodes() {
        return client.nodes();
    }

    @Override
    public Page<Job> jobs(JobQuery query, String cursor, int limit) {
        return client.listJobs(filter(query), limit, cursor);
    }

    static JobFilter filter(JobQuery query) {
        JobFilter filter = JobFilter.create().status(query.status()).queue(query.queue())
                .namePrefix(query.namePrefix());
        query.labels().forEach(filter::label);
        return filter;
    }

    @Override
    public Job job(String id) {
        return client.getJob(id);
    }

    @Override
    public SubmitResult submit(JobRequest request) {
        return client.submitJob(request);
    }

    @Override
    public SubmitResult submit(JobRequest request, Parents parents) {
        return client.submitJob(parents == null || parents.none() ? request : withParents(request, parents));
    }

    static JobRequest withParents(JobRequest r, Parents parents) {
        return r.withDependsOn(parents.ids(), parents.onParentFailure());
    }

    @Override
    public JobWorkflow workflow(String jobId) {
        Job job = client.getJob(jobId);
        return new JobWorkflow(job, job.dependsOn(), job.onParentFailure(), job.batchId(), nodes(job.parentsOrEmpty()),
                nodes(job.childrenOrEmpty()));
    }

    private static List<WorkflowNode> nodes(List<LinkedJob> jobs) {
        return jobs.stream().map(j -> new WorkflowNode(j.id(), j.name(), j.status(), j.runStatus())).toList();
    }

    @Override
    public BatchProgress batch(String batchId) {
        Batch b = client.getBatch(batchId);
        return new BatchProgress(b.id(), b.name(), b.createdAt(), b.completedAt(), b.total(), b.waiting(), b.pending(),
                b.running(), b.succeeded(), b.dead(), b.cancelled(), b.onCompleteJobId(), b.status());
    }

    @Override
    public List<ScheduledFire> previewSchedule(String cronExpr, String timezone, int count) {
        return client.previewSchedule(cronExpr, timezone, null, count);
    }

    @Override
    public Job pause(String jobId) {
        return client.pauseJob(jobId);
    }

    @Override
    public Job pause(String jobId, String note) {
        return client.pauseJob(jobId, note == null || note.isBlank() ? null : note.strip());
    }

    @Override
    public Job resume(String jobId) {
        return client.resumeJob(jobId);
    }

    @Override
    public Job cancel(String jobId) {
        return client.cancelJob(jobId);
    }

    @Override
    public Job delete(String jobId, boolean cancelRunning) {
        return client.deleteJob(jobId, cancelRunning, false)
                .orElseThrow(() -> new IllegalStateException("the server answered no tombstone for job " + jobId));
    }

    @Override
    public Run trigger(String jobId) {
        return client.triggerJob(jobId);
    }

    @Override
    public io.forgeflow.client.Backfill backfill(String jobId, java.time.Instant from, java.time.Instant to,
                                                 String overlap) {
        return client.backfillJob(jobId, from, to, overlap);
    }

    @Override
    public io.forgeflow.client.Backfill backfillProgress(String jobId, String backfillId) {
        return client.getBackfill(jobId, backfillId);
    }

    @Override
    public Job update(String jobId, JobUpdate update, boolean keepPending) {
        return client.updateJob(jobId, update, keepPending);
    }

    @Override
    public Page<Run> runs(RunQuery query, String cursor, int limit) {
        return client.listRuns(filter(query), limit, cursor);
    }

    static RunFilter filter(RunQuery query) {
        RunFilter filter = RunFilter.create().jobId(query.jobId()).status(query.status()).queue(query.queue())
                .scheduledAfter(query.scheduledAfter()).scheduledBefore(query.scheduledBefore())
                .finishedAfter(query.finishedAfter());
        query.labels().forEach(filter::label);
        return filter;
    }

    @Override
    public RunTrace trace(Run run) {
        return run == null ? RunTrace.NONE : new RunTrace(run.traceId(), run.traceUrl());
    }

    @Override
    public Run run(String id) {
        return client.getRun(id);
    }

    @Override
    public Run requeue(String runId) {
        return client.requeueRun(runId);
    }

    @Override
    public Run cancelRun(String runId) {
        return client.cancelRun(runId);
    }

    @Override
    public List<io.forgeflow.client.Tenant> tenants() {
        return client.tenants();
    }

    @Override
    public io.forgeflow.client.Tenant configureTenant(String name, io.forgeflow.client.TenantUpdate update) {
        return client.configureTenant(name, update);
    }

    @Override
    public List<io.forgeflow.client.Queue> queues() {
        return client.queues();
    }

    @Override
    public io.forgeflow.client.Queue configureQueue(String tenant, String name,
                                                    io.forgeflow.client.QueueUpdate update) {
        return in(tenant).configureQueue(name, update);
    }

    @Override
    public io.forgeflow.client.Queue pauseQueue(String tenant, String name) {
        return in(tenant).pauseQueue(name);
    }

    @Override
    public io.forgeflow.client.Queue resumeQueue(String tenant, String name) {
        return in(tenant).resumeQueue(name);
    }

    /** This client, or one naming tenant in its header (it shares this one's connections and needs no closing). */
    private ForgeFlowClient in(String tenant) {
        return tenant == null || tenant.equals(client.tenant()) ? client : client.withTenant(tenant);
    }

    @Override
    public EventSubscription events(RunEventListener listener) {
        return client.subscribe(listener);
    }

    @Override
    public void close() {
        client.close();
        if (owner != null) {
            owner.close();
        }
    }

    @Override
    public String toString() {
        return "RestClusterClient[" + client.baseUrl() + (client.tenant() == null ? "" : ", tenant " + client.tenant())
                + "]";
    }
}
