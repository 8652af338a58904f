package io.forgeflow.admin.testing;

import io.forgeflow.admin.cluster.BatchProgress;
import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobWorkflow;
import io.forgeflow.admin.cluster.Parents;
import io.forgeflow.admin.cluster.WorkflowNode;
import io.forgeflow.admin.cluster.JobQuery;
import io.forgeflow.admin.cluster.RunQuery;
import io.forgeflow.admin.cluster.RunTrace;
import io.forgeflow.client.EventSubscription;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowException;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.Node;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import io.forgeflow.client.RunEvent;
import io.forgeflow.client.RunEventListener;
import io.forgeflow.client.Stats;
import io.forgeflow.client.SubmitResult;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.function.Supplier;

/**
 * An in-memory cluster for view-model tests: jobs and runs in insertion order (lists answer newest first), the
 * transitions of API.md (409 where the server refuses), scripted failures per method, and an event stream the test
 * drives. Records every call as {@code "method arg…"}.
 */
public final class FakeClusterClient implements ClusterClient {
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private final Map<String, Run> runs = new LinkedHashMap<>();
    private final Map<String, RunTrace> traces = new HashMap<>();
    /** depends_on, on_parent_failure and batch_id by job id (parents and children are derived from them). */
    private final Map<String, List<String>> dependsOn = new HashMap<>();
    private final Map<String, String> policies = new HashMap<>();
    private final Map<String, String> batchOf = new HashMap<>();
    private final Map<String, BatchProgress> batches = new HashMap<>();
    /** The parents each submission with parents sent, in order. */
    private final List<Parents> submittedParents = new ArrayList<>();
    private final Map<String, Queue<RuntimeException>> failures = new HashMap<>();
    private final List<String> calls = new ArrayList<>();
    private final List<JobRequest> submitted = new ArrayList<>();
    /** The tenant this client acts in ({@link #inTenant}); lists then hold only that tenant's jobs and runs. */
    private String tenant;
    private final List<Node> nodes = new ArrayList<>();
    /** Tenants' settings and load by name, in name order as the server lists them. */
    private final Map<String, io.forgeflow.client.Tenant> tenants = new java.util.TreeMap<>();
    /** Queues by tenant, then name, as the server lists them; each is its tenant's. */
    private final Map<String, io.forgeflow.client.Queue> queues = new java.util.TreeMap<>();
    private RunEventListener listener;
    private boolean subscriptionClosed;
    private boolean closed;
    private int nextId = 1;
    private Supplier<SubmitResult> submitAnswer;
    private java.util.function.BiFunction<String, String, List<io.forgeflow.client.ScheduledFire>> previewAnswer =
            (cron, zone) -> List.of();

    public FakeClusterClient withJob(Job job) {
        jobs.put(job.id(), job);
        return this;
    }

    /** The job waits for these parents with this policy (null: the server's default). */
    public FakeClusterClient withParents(String jobId, String policy, String... parentIds) {
        dependsOn.put(jobId, List.of(parentIds));
        if (policy != null) {
            policies.put(jobId, policy);
        }
        return this;
    }

    /** The job was made by this batch. */
    public FakeClusterClient inBatch(String jobId, String batchId) {
        batchOf.put(jobId, batchId);
        return this;
    }

    public FakeClusterClient withBatch(BatchProgress batch) {
        batches.put(batch.id(), batch);
        return this;
    }

    public List<Parents> submittedParents() {
        return submittedParents;
    }

    public FakeClusterClient withRun(Run run) {
        runs.put(run.id(), run);
        return this;
    }

    public FakeClusterClient withNode(Node node) {
        nodes.add(node);
        return this;
    }

    public FakeClusterClient withTenant(io.forgeflow.client.Tenant t) {
        tenants.put(t.name(), t);
        return this;
    }

    /** A queue as GET /api/queues lists it (a null tenant is the default one's). */
    public FakeClusterClient withQueue(io.forgeflow.client.Queue q) {
        queues.put(queueKey(q.tenant() == null ? "default" : q.tenant(), q.name()), q);
        return this;
    }

    /** Tenant's queue of that name as the cluster has it now, or null. */
    public io.forgeflow.client.Queue queue(String tenant, String name) {
        return queues.get(queueKey(tenant, name));
    }

    private static String queueKey(String tenant, String name) {
        return tenant + "\u0000" + name;
    }

    public io.forgeflow.client.Tenant tenantByName(String name) {
        return tenants.get(name);
    }

    /** The next call of method (e.g. "stats", "pause") throws failure. */
    public FakeClusterClient failNext(String method, RuntimeException failure) {
        failures.computeIfAbsent(method, m -> new ArrayDeque<>()).add(failure);
        return this;
    }

    /** Answers schedule previews (expression, zone) with this; by default an empty list. */
    public FakeClusterClient answerPreview(
            java.util.function.BiFunction<String, String, List<io.forgeflow.client.ScheduledFire>> answer) {
        this.previewAnswer = answer;
        return this;
    }

    /** Answers submissions with this instead of creating a job. */
    public FakeClusterClient answerSubmit(Supplier<SubmitResult> answer) {
        this.submitAnswer = answer;
        return this;
    }

    public List<String> calls() {
        return calls;
    }

    public Run runById(String id) {
        return runs.get(id);
    }

    public Job jobById(String id) {
        return jobs.get(id);
    }

    public boolean isClosed() {
        return closed;
    }

    public boolean subscriptionClosed() {
        return subscriptionClosed;
    }

    // ---------------------------------------------------------------- the event stream, driven by the test

    public void openStream() {
        listener.onOpen();
    }

    public void emit(RunEvent event) {
        listener.onEvent(event);
    }

    public void failStream(ForgeFlowException failure, boolean retrying) {
        listener.onFailure(failure, retrying);
    }

    private void called(String method, Object... args) {
        StringBuilder call = new StringBuilder(method);
        for (Object arg : args) {
            call.append(' ').append(arg);
        }
        calls.add(call.toString());
        Queue<RuntimeException> queued = failures.get(method);
        if (queued != null && !queued.isEmpty()) {
            throw queued.remove();
        }
    }

    @Override
    public String serverUrl() {
        return "http://fake:8080/";
    }

    @Override
    public String tenant() {
        return tenant;
    }

    /** Acts in tenant from now on (this same fake, so the test keeps its handle). */
    @Override
    public ClusterClient inTenant(String name) {
        called("inTenant", name);
        tenant = name == null || name.isBlank() ? null : name.strip();
        return this;
    }

    /** The requests submitted, in order. */
    public List<JobRequest> submittedRequests() {
        return submitted;
    }

    private boolean inScope(String owner) {
        return tenant == null || tenant.equals(owner == null ? "default" : owner);
    }

    @Override
    public Stats stats() {
        called("stats");
        Map<String, Long> n = new HashMap<>();
        runs.values().forEach(r -> n.merge(r.status(), 1L, Long::sum));
        return new Stats(n.getOrDefault(Run.PENDING, 0L), n.getOrDefault(Run.RUNNING, 0L),
                n.getOrDefault(Run.SUCCEEDED, 0L), n.getOrDefault(Run.DEAD, 0L), n.getOrDefault(Run.CANCELLED, 0L),
                n.getOrDefault(Run.WAITING, 0L));
    }

    @Override
    public List<Node> nodes() {
        called("nodes");
        return List.copyOf(nodes);
    }

    @Override
    public Page<Job> jobs(JobQuery query, String cursor, int limit) {
        if (query.narrowsBeyondStatus()) {
            called("jobs", query.status(), cursor, limit, "[" + query + "]");
        } else {
            called("jobs", query.status(), cursor, limit);
        }
        List<Job> all = new ArrayList<>(jobs.values());
        java.util.Collections.reverse(all);
        String status = query.status();
        return page(all.stream()
                .filter(j -> status == null ? !j.status().equals(Job.DELETED) : j.status().equals(status))
                .filter(j -> query.queue() == null || j.queue().equals(query.queue()))
                .filter(j -> query.namePrefix() == null || j.name().startsWith(query.namePrefix()))
                .filter(j -> j.labels().entrySet().containsAll(query.labels().entrySet()))
                .filter(j -> inScope(j.tenant()))
                .toList(), cursor, limit);
    }

    @Override
    public Job job(String id) {
        called("job", id);
        Job job = jobs.get(id);
        if (job == null) {
            throw new ForgeFlowApiException(404, "no job " + id, null);
        }
        return job;
    }

    @Override
    public List<io.forgeflow.client.ScheduledFire> previewSchedule(String cronExpr, String timezone, int count) {
        called("previewSchedule", cronExpr, timezone, count);
        return previewAnswer.apply(cronExpr, timezone);
    }

    @Override
    public SubmitResult submit(JobRequest request) {
        called("submit", request.name());
        submitted.add(request);
        if (submitAnswer != null) {
            return submitAnswer.get();
        }
        String id = "job_" + nextId++;
        Job job = new Job(id, request.name(), request.executor(), request.payload(), request.cronExpr(),
                request.runAt(), request.timezone(), request.priority(), request.maxAttempts(),
                request.timeoutSeconds(), request.catchUp(), request.idempotencyKey(), Job.ACTIVE,
                Fixtures.T0.plusSeconds(60), Fixtures.T0, Fixtures.T0);
        jobs.put(id, job);
        return new SubmitResult(job, true);
    }

    @Override
    public SubmitResult submit(JobRequest request, Parents parents) {
        called("submitWithParents", request.name(), parents.ids(), parents.onParentFailure());
        submittedParents.add(parents);
        for (String parent : parents.ids()) {
            if (!jobs.containsKey(parent)) {
                throw new ForgeFlowApiException(422, "depends_on: no job " + parent, "depends_on",
                        "validation_failed");
            }
        }
        SubmitResult result = submitAnswer != null ? submitAnswer.get() : submit(request);
        calls.remove(calls.size() - 1);
        dependsOn.put(result.job().id(), parents.ids());
        if (parents.onParentFailure() != null) {
            policies.put(result.job().id(), parents.onParentFailure());
        }
        return result;
    }

    @Override
    public JobWorkflow workflow(String jobId) {
        called("workflow", jobId);
        Job job = jobs.get(jobId);
        if (job == null) {
            throw new ForgeFlowApiException(404, "no job " + jobId, null, "not_found");
        }
        List<String> parents = dependsOn.getOrDefault(jobId, List.of());
        List<String> children = dependsOn.entrySet().stream().filter(e -> e.getValue().contains(jobId))
                .map(Map.Entry::getKey).sorted().toList();
        return new JobWorkflow(job, parents, parents.isEmpty() ? null : policies.getOrDefault(jobId, "cancel"),
                batchOf.get(jobId), parents.stream().map(this::node).toList(),
                children.stream().map(this::node).toList());
    }

    private WorkflowNode node(String jobId) {
        Job job = jobs.get(jobId);
        Run latest = runs.values().stream().filter(r -> r.jobId().equals(jobId)).reduce((a, b) -> b).orElse(null);
        return new WorkflowNode(jobId, job == null ? null : job.name(), job == null ? null : job.status(),
                latest == null ? null : latest.status());
    }

    @Override
    public BatchProgress batch(String batchId) {
        called("batch", batchId);
        BatchProgress batch = batches.get(batchId);
        if (batch == null) {
            throw new ForgeFlowApiException(404, "no batch " + batchId, null, "not_found");
        }
        return batch;
    }

    @Override
    public Job pause(String jobId) {
        called("pause", jobId);
        return move(jobId, Job.PAUSED, Job.ACTIVE);
    }

    @Override
    public Job pause(String jobId, String note) {
        called("pause", jobId, note);
        Job job = move(jobId, Job.PAUSED, Job.ACTIVE);
        Job noted = new Job(job.id(), job.name(), job.executor(), job.payload(), job.cronExpr(), job.runAt(),
                job.timezone(), job.priority(), job.maxAttempts(), job.timeoutSeconds(), job.catchUp(),
                job.idempotencyKey(), job.status(), job.nextRunAt(), job.createdAt(), job.updatedAt(), job.queue(),
                job.concurrencyKey(), job.maxConcurrent(), job.overlap(), job.waitingFor(), job.retry(), job.labels(),
                job.traceId(), job.dependsOn(), job.onParentFailure(), job.batchId(), job.parents(), job.children(),
                job.startAt(), job.endAt(), job.maxRuns(), job.jitterSeconds(), job.pauseAfterFailures(),
                job.firedRuns(), note, "token 1");
        jobs.put(jobId, noted);
        return noted;
    }

    @Override
    public Job resume(String jobId) {
        called("resume", jobId);
        return move(jobId, Job.ACTIVE, Job.PAUSED);
    }

    @Override
    public Job cancel(String jobId) {
        called("cancel", jobId);
        return move(jobId, Job.CANCELLED, Job.ACTIVE, Job.PAUSED);
    }

    @Override
    public Job delete(String jobId, boolean cancelRunning) {
        called("delete", jobId, cancelRunning);
        boolean running = runs.values().stream().anyMatch(r -> r.jobId().equals(jobId) && Run.RUNNING.equals(r.status()));
        if (running && !cancelRunning) {
            throw new ForgeFlowApiException(409, "job " + jobId + " has a running run: add ?cancel_running=true",
                    null, "job_running");
        }
        return move(jobId, Job.DELETED, Job.ACTIVE, Job.PAUSED, Job.COMPLETED, Job.CANCELLED);
    }

    private Job move(String jobId, String to, String... from) {
        Job job = jobs.get(jobId);
        if (job == null) {
            throw new ForgeFlowApiException(404, "no job " + jobId, null);
        }
        if (!List.of(from).contains(job.status())) {
            throw new ForgeFlowApiException(409, "job " + jobId + " is " + job.status(), null);
        }
        Job moved = Fixtures.withStatus(job, to);
        jobs.put(jobId, moved);
        return moved;
    }

    @Override
    public Run trigger(String jobId) {
        called("trigger", jobId);
        Run run = Fixtures.run("run_t" + nextId++, jobId, Run.PENDING);
        runs.put(run.id(), run);
        return run;
    }

    @Override
    public Page<Run> runs(RunQuery query, String cursor, int limit) {
        String jobId = query.jobId();
        String status = query.status();
        if (query.equals(RunQuery.of(jobId, status))) {
            called("runs", jobId, status, cursor, limit);
        } else {
            called("runs", jobId, status, cursor, limit, "[" + query + "]");
        }
        List<Run> all = new ArrayList<>(runs.values());
        java.util.Collections.reverse(all);
        return page(all.stream().filter(r -> jobId == null || r.jobId().equals(jobId))
                .filter(r -> status == null || r.status().equals(status))
                .filter(r -> query.queue() == null || (jobs.containsKey(r.jobId())
                        && jobs.get(r.jobId()).queue().equals(query.queue())))
                .filter(r -> r.labels().entrySet().containsAll(query.labels().entrySet()))
                .filter(r -> query.scheduledAfter() == null || r.scheduledFor().isAfter(query.scheduledAfter()))
                .filter(r -> query.scheduledBefore() == null || r.scheduledFor().isBefore(query.scheduledBefore()))
                .filter(r -> query.finishedAfter() == null || (r.finishedAt() != null
                        && r.finishedAt().isAfter(query.finishedAfter())))
                .filter(r -> inScope(r.tenant()))
                .toList(), cursor, limit);
    }

    @Override
    public RunTrace trace(Run run) {
        return traces.getOrDefault(run.id(), RunTrace.NONE);
    }

    /** The server sent this trace with the run. */
    public FakeClusterClient withTrace(String runId, RunTrace trace) {
        traces.put(runId, trace);
        return this;
    }

    /**
     * A backfill of one tick per hour from..to (a stand-in for the job's schedule): ticks backfilled before are counted
     * as skipped; to before from is a 422 naming {@code to}, a one-off job a 409.
     */
    @Override
    public io.forgeflow.client.Backfill backfill(String jobId, Instant from, Instant to, String overlap) {
        called("backfill", jobId, from, to, overlap);
        Job job = jobs.get(jobId);
        if (job == null) {
            throw new ForgeFlowApiException(404, "no job " + jobId, null);
        }
        if (job.cronExpr() == null) {
            throw new ForgeFlowApiException(409, "job " + jobId + " is not recurring", null, "conflict");
        }
        if (to.isBefore(from)) {
            throw new ForgeFlowApiException(422, "to must not be before from", "to", "validation_failed");
        }
        int ticks = 0;
        int created = 0;
        for (Instant t = from; !t.isAfter(to); t = t.plusSeconds(3600)) {
            ticks++;
            if (backfilledTicks.add(jobId + "@" + t)) {
                created++;
            }
        }
        return new io.forgeflow.client.Backfill("bf_" + nextId++, jobId, from, to, overlap, ticks, created,
                ticks - created, Fixtures.T0, false, Map.of("pending", (long) created));
    }

    private final java.util.Set<String> backfilledTicks = new java.util.HashSet<>();
    private final Map<String, java.util.Deque<io.forgeflow.client.Backfill>> backfillProgress = new HashMap<>();

    /** What the next reads of a backfill's progress answer, in turn (the last one again after them). */
    public FakeClusterClient withBackfillProgress(String backfillId, io.forgeflow.client.Backfill... answers) {
        backfillProgress.put(backfillId, new java.util.ArrayDeque<>(List.of(answers)));
        return this;
    }

    @Override
    public io.forgeflow.client.Backfill backfillProgress(String jobId, String backfillId) {
        called("backfillProgress", jobId, backfillId);
        java.util.Deque<io.forgeflow.client.Backfill> answers = backfillProgress.get(backfillId);
        if (answers == null || answers.isEmpty()) {
            throw new ForgeFlowApiException(404, "no backfill " + backfillId, null, "not_found");
        }
        return answers.size() == 1 ? answers.peek() : answers.remove();
    }

    /** Applies the PATCH body's fields to the job, as the server would (without its checks). */
    @Override
    public Job update(String jobId, JobUpdate update, boolean keepPending) {
        called("update", jobId, update.body(), keepPending ? "keep" : "follow");
        Job job = jobs.get(jobId);
        if (job == null) {
            throw new ForgeFlowApiException(404, "no job " + jobId, null);
        }
        if (job.status().equals(Job.CANCELLED) || job.status().equals(Job.DELETED)) {
            throw new ForgeFlowApiException(409, "job " + jobId + " is " + job.status() + " and cannot be changed",
                    null, "conflict");
        }
        Job changed = Fixtures.patched(job, update.body());
        jobs.put(jobId, changed);
        return changed;
    }

    @Override
    public Run run(String id) {
        called("run", id);
        Run run = runs.get(id);
        if (run == null) {
            throw new ForgeFlowApiException(404, "no run " + id, null);
        }
        return run;
    }

    @Override
    public Run requeue(String runId) {
        called("requeue", runId);
        Run run = runs.get(runId);
        if (!run.status().equals(Run.DEAD) && !run.status().equals(Run.CANCELLED)) {
            throw new ForgeFlowApiException(409, "run " + runId + " is " + run.status()
                    + "; only dead or cancelled runs can be requeued", null);
        }
        Run moved = Fixtures.withStatus(run, Run.PENDING);
        runs.put(runId, moved);
        return moved;
    }

    @Override
    public Run cancelRun(String runId) {
        called("cancelRun", runId);
        Run run = runs.get(runId);
        if (!run.status().equals(Run.PENDING) && !run.status().equals(Run.RUNNING)) {
            throw new ForgeFlowApiException(409, "run " + runId + " is " + run.status(), null);
        }
        Run moved = Fixtures.withStatus(run, Run.CANCELLED);
        runs.put(runId, moved);
        return moved;
    }

    /** Changes a run behind the console's back (as a worker would). */
    public void change(String runId, String status) {
        runs.put(runId, Fixtures.withStatus(runs.get(runId), status));
    }

    @Override
    public List<io.forgeflow.client.Tenant> tenants() {
        called("tenants");
        return List.copyOf(tenants.values());
    }

    /** Applies the PUT body as the server does, with its range checks (422 naming the field). */
    @Override
    @SuppressWarnings("unchecked")
    public io.forgeflow.client.Tenant configureTenant(String name, io.forgeflow.client.TenantUpdate update) {
        called("configureTenant", name, update.body());
        io.forgeflow.client.Tenant t = tenants.getOrDefault(name,
                new io.forgeflow.client.Tenant(name, 1, null, null, 0, 0, 0));
        Map<String, Object> body = update.body();
        int weight = t.weight();
        if (body.containsKey("weight")) {
            Integer w = (Integer) body.get("weight");
            weight = w == null ? 1 : w;
            if (weight < 1 || weight > 1000) {
                throw invalid("weight", "weight must be a whole number from 1 to 1000 (1 when not set); was " + w);
            }
        }
        Integer max = t.maxRunning();
        if (body.containsKey("max_running")) {
            max = (Integer) body.get("max_running");
            if (max != null && (max < 1 || max > 100_000)) {
                throw invalid("max_running", "max_running must be between 1 and 100000, or null for no limit; was "
                        + max);
            }
        }
        io.forgeflow.client.Tenant.RateLimit rate = t.rateLimit();
        if (body.containsKey("rate_limit")) {
            Map<String, Object> r = (Map<String, Object>) body.get("rate_limit");
            rate = r == null ? null : new io.forgeflow.client.Tenant.RateLimit((Integer) r.get("count"),
                    (Integer) r.get("per_seconds"));
            if (rate != null && (rate.count() < 1 || rate.count() > 1_000_000)) {
                throw invalid("rate_limit.count", "rate_limit.count must be between 1 and 1000000, was "
                        + rate.count());
            }
        }
        io.forgeflow.client.Tenant after = new io.forgeflow.client.Tenant(name, weight, max, rate, t.pending(),
                t.running(), rate == null ? 0 : t.startsInWindow());
        tenants.put(name, after);
        return after;
    }

    /** Every tenant's queues without a tenant, else only the one this client acts in (by tenant, then name). */
    @Override
    public List<io.forgeflow.client.Queue> queues() {
        called("queues");
        return queues.values().stream().filter(q -> inScope(q.tenant())).toList();
    }

    /** Applies the PUT body as the server does, with its range checks (422 naming the field). */
    @Override
    @SuppressWarnings("unchecked")
    public io.forgeflow.client.Queue configureQueue(String tenant, String name,
                                                    io.forgeflow.client.QueueUpdate update) {
        String in = actingFor(tenant);
        called("configureQueue", in, name, update.body());
        io.forgeflow.client.Queue q = queueOrEmpty(in, name);
        Map<String, Object> body = update.body();
        Integer max = q.maxRunning();
        if (body.containsKey("max_running")) {
            max = (Integer) body.get("max_running");
            if (max != null && (max < 1 || max > 100_000)) {
                throw invalid("max_running", "max_running must be between 1 and 100000, or null for no limit, was "
                        + max);
            }
        }
        io.forgeflow.client.Queue.RateLimit rate = q.rateLimit();
        if (body.containsKey("rate_limit")) {
            Map<String, Object> r = (Map<String, Object>) body.get("rate_limit");
            rate = r == null ? null : new io.forgeflow.client.Queue.RateLimit((Integer) r.get("count"),
                    (Integer) r.get("per_seconds"));
            if (rate != null && (rate.count() < 1 || rate.count() > 1_000_000)) {
                throw invalid("rate_limit.count", "rate_limit.count must be between 1 and 1000000, was "
                        + rate.count());
            }
            if (rate != null && (rate.perSeconds() < 1 || rate.perSeconds() > 86_400)) {
                throw invalid("rate_limit.per_seconds", "rate_limit.per_seconds must be between 1 and 86400, was "
                        + rate.perSeconds());
            }
        }
        return putQueue(new io.forgeflow.client.Queue(name, q.paused(), max, rate, q.pending(), q.due(), q.running(),
                q.lagSeconds(), rate == null ? 0 : q.startsInWindow(), in));
    }

    @Override
    public io.forgeflow.client.Queue pauseQueue(String tenant, String name) {
        String in = actingFor(tenant);
        called("pauseQueue", in, name);
        return putQueue(paused(queueOrEmpty(in, name), true));
    }

    @Override
    public io.forgeflow.client.Queue resumeQueue(String tenant, String name) {
        String in = actingFor(tenant);
        called("resumeQueue", in, name);
        return putQueue(paused(queueOrEmpty(in, name), false));
    }

    /** The tenant a queue call acts in: the one it names, else this client's, else the default. */
    private String actingFor(String named) {
        return named != null ? named : tenant != null ? tenant : "default";
    }

    private io.forgeflow.client.Queue queueOrEmpty(String in, String name) {
        io.forgeflow.client.Queue q = queues.get(queueKey(in, name));
        return q != null ? q : new io.forgeflow.client.Queue(name, false, null, null, 0, 0, 0, 0, 0, in);
    }

    private io.forgeflow.client.Queue putQueue(io.forgeflow.client.Queue q) {
        queues.put(queueKey(q.tenant(), q.name()), q);
        return q;
    }

    private static io.forgeflow.client.Queue paused(io.forgeflow.client.Queue q, boolean paused) {
        return new io.forgeflow.client.Queue(q.name(), paused, q.maxRunning(), q.rateLimit(), q.pending(), q.due(),
                q.running(), q.lagSeconds(), q.startsInWindow(), q.tenant() == null ? "default" : q.tenant());
    }

    private static ForgeFlowApiException invalid(String field, String message) {
        return new ForgeFlowApiException(422, message, field, "validation_failed");
    }

    @Override
    public EventSubscription events(RunEventListener l) {
        called("events");
        this.listener = l;
        return new EventSubscription() {
            @Override
            public boolean isActive() {
                return !subscriptionClosed;
            }

            @Override
            public String lastEventId() {
                return null;
            }

            @Override
            public void close() {
                subscriptionClosed = true;
            }
        };
    }

    @Override
    public void close() {
        closed = true;
    }

    private static <T> Page<T> page(List<T> all, String cursor, int limit) {
        int from = cursor == null ? 0 : Integer.parseInt(cursor);
        int to = Math.min(all.size(), from + limit);
        return new Page<>(all.subList(from, to), to < all.size() ? Integer.toString(to) : null);
    }

    public static RunEvent event(String runId, String jobId, String status, String previous) {
        return new RunEvent("e-" + runId + "-" + status, "run", runId, jobId, status, previous,
                Instant.parse("2026-07-01T09:31:00Z"), "{}");
    }
}
