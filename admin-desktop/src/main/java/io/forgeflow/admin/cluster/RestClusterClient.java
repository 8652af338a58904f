package io.forgeflow.admin.cluster;

import io.forgeflow.client.EventSubscription;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobFilter;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.RunFilter;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.Node;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import io.forgeflow.client.RunEventListener;
import io.forgeflow.client.ScheduledFire;
import io.forgeflow.client.Stats;
import io.forgeflow.client.SubmitResult;

import okhttp3.OkHttpClient;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** {@link ClusterClient} over HTTP: a thin adapter on the project's one REST client, {@link ForgeFlowClient}. */
public final class RestClusterClient implements ClusterClient {
    private final ForgeFlowClient client;
    private final TraceFields traces;
    private final OkHttpClient http;
    private final WorkflowCalls workflows;

    /**
     * Over a client built elsewhere: runs' traces are not learned ({@link #trace} answers none), and the workflow
     * routes are called without a token.
     */
    public RestClusterClient(ForgeFlowClient client) {
        this(client, new TraceFields(), new OkHttpClient());
    }

    private RestClusterClient(ForgeFlowClient client, TraceFields traces, OkHttpClient plain) {
        this(client, traces, plain, new WorkflowCalls(client.baseUrl(), null, plain));
    }

    private RestClusterClient(ForgeFlowClient client, TraceFields traces, OkHttpClient http, WorkflowCalls workflows) {
        this.client = Objects.requireNonNull(client, "client");
        this.traces = traces;
        this.http = http;
        this.workflows = workflows;
    }

    /**
     * A client with the console's timeouts: 3 s to connect and 15 s for a call, so a hung server shows an error
     * instead of a spinner forever; the event stream reconnects every 2 s.
     */
    public static RestClusterClient open(String serverUrl, String token) {
        TraceFields traces = new TraceFields();
        OkHttpClient http = new OkHttpClient.Builder().addInterceptor(traces).build();
        try {
            ForgeFlowClient client = ForgeFlowClient.builder(serverUrl).token(token).okHttpClient(http)
                    .connectTimeout(Duration.ofSeconds(3)).readTimeout(Duration.ofSeconds(15))
                    .callTimeout(Duration.ofSeconds(15)).eventRetry(Duration.ofSeconds(2)).build();
            return new RestClusterClient(client, traces, http, new WorkflowCalls(client.baseUrl(), token, http));
        } catch (RuntimeException badUrl) {
            shutdown(http);
            throw badUrl;
        }
    }

    private static void shutdown(OkHttpClient http) {
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }

    @Override
    public String serverUrl() {
        return client.baseUrl();
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
        return parents == null || parents.none() ? client.submitJob(request) : workflows.submit(request, parents);
    }

    @Override
    public JobWorkflow workflow(String jobId) {
        return workflows.workflow(jobId);
    }

    @Override
    public BatchProgress batch(String batchId) {
        return workflows.batch(batchId);
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
        return run == null ? RunTrace.NONE : traces.of(run.id());
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
    public EventSubscription events(RunEventListener listener) {
        return client.subscribe(listener);
    }

    @Override
    public void close() {
        client.close();
        if (http != null) {
            shutdown(http);
        }
    }

    @Override
    public String toString() {
        return "RestClusterClient[" + client.baseUrl() + "]";
    }
}
