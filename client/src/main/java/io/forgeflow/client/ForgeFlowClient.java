package io.forgeflow.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Typed access to every route of the ForgeFlow REST contract (shared/API.md). Thread-safe; create one per server and
 * share it. Methods block the calling thread (do not call them on a UI thread) and throw
 * {@link ForgeFlowApiException} when the server answers an error and {@link ForgeFlowUnavailableException} when it
 * cannot be reached.
 *
 * <p>Retries: what is safe to send twice is sent again when the node answers 503 (its database restarts, fails over
 * or ended connections; {@code Retry-After} is honoured) or the connection fails before an answer (refused, reset;
 * not a timeout): every GET, and {@code POST /api/jobs} when the request carries an {@code idempotency_key} (the
 * server stores it once, a replay answers 200 with the job). Other writes are never retried: a write whose answer was
 * lost may have taken effect. At most {@link Builder#retries(int)} retries (5 by default) with full-jitter
 * exponential backoff (250 ms doubling to 4 s), then the last answer or failure is thrown.
 *
 * <pre>{@code
 * try (ForgeFlowClient client = ForgeFlowClient.builder("http://127.0.0.1:8080").token(System.getenv("TOKEN")).build()) {
 *     SubmitResult submitted = client.submitJob(JobRequest.shell("hello", "echo hello").build());
 *     Page<Run> runs = client.listRuns(submitted.job().id(), null, 10, null);
 * }
 * }</pre>
 */
public final class ForgeFlowClient implements AutoCloseable {
    private static final MediaType JSON = MediaType.get("application/json");
    private static final RequestBody EMPTY = RequestBody.create(new byte[0], null);
    private static final String USER_AGENT = "forgeflow-client/0.1";
    /** The header naming the tenant a request acts in. */
    public static final String TENANT_HEADER = "X-ForgeFlow-Tenant";

    private final HttpUrl baseUrl;
    private final OkHttpClient http;
    private final OkHttpClient streaming;
    private final boolean ownsHttp;
    private final ObjectMapper json = Json.mapper();
    private final Duration eventRetry;
    private final Set<EventStream> subscriptions = ConcurrentHashMap.newKeySet();
    private final int maxRetries;
    private final Duration retryBase;
    private final Duration retryCap;
    private final String tenant;

    private ForgeFlowClient(Builder b) {
        this.baseUrl = b.baseUrl;
        this.tenant = b.tenant;
        this.eventRetry = b.eventRetry;
        this.maxRetries = b.maxRetries;
        this.retryBase = b.retryBase;
        this.retryCap = b.retryCap;
        OkHttpClient base = b.okHttpClient != null ? b.okHttpClient : new OkHttpClient();
        this.ownsHttp = b.okHttpClient == null;
        String authorization = b.token == null || b.token.isBlank() ? null : "Bearer " + b.token.trim();
        String tenantName = b.tenant;
        OkHttpClient.Builder common = base.newBuilder()
                .addInterceptor(chain -> {
                    Request.Builder request = chain.request().newBuilder().header("User-Agent", USER_AGENT);
                    if (authorization != null) {
                        request.header("Authorization", authorization);
                    }
                    if (tenantName != null) {
                        request.header(TENANT_HEADER, tenantName);
                    }
                    return chain.proceed(request.build());
                });
        this.http = common.connectTimeout(b.connectTimeout).readTimeout(b.readTimeout).writeTimeout(b.readTimeout)
                .callTimeout(b.callTimeout).build();
        // an event stream is idle between events for as long as nothing happens: no read or call timeout
        this.streaming = http.newBuilder().readTimeout(b.eventReadTimeout).callTimeout(Duration.ZERO).build();
    }

    /** A client like parent (same server, token, settings, connections and threads) acting in tenant (null: none). */
    private ForgeFlowClient(ForgeFlowClient parent, String tenant) {
        this.baseUrl = parent.baseUrl;
        this.tenant = tenant;
        this.eventRetry = parent.eventRetry;
        this.maxRetries = parent.maxRetries;
        this.retryBase = parent.retryBase;
        this.retryCap = parent.retryCap;
        this.ownsHttp = false;
        // runs after the parent's interceptor: replaces (or removes) the tenant it set
        okhttp3.Interceptor inTenant = chain -> {
            Request.Builder request = chain.request().newBuilder();
            if (tenant == null) {
                request.removeHeader(TENANT_HEADER);
            } else {
                request.header(TENANT_HEADER, tenant);
            }
            return chain.proceed(request.build());
        };
        this.http = parent.http.newBuilder().addInterceptor(inTenant).build();
        this.streaming = parent.streaming.newBuilder().addInterceptor(inTenant).build();
    }

    /** A builder for a server at baseUrl, e.g. {@code http://127.0.0.1:8080} (a path prefix is kept). */
    public static Builder builder(String baseUrl) {
        return new Builder(baseUrl);
    }

    /** A client with default settings and no token. */
    public static ForgeFlowClient create(String baseUrl) {
        return builder(baseUrl).build();
    }

    /** The tenant every request names in {@value #TENANT_HEADER}, or null when it names none. */
    public String tenant() {
        return tenant;
    }

    /**
     * A client acting in another tenant: every request it sends carries {@code X-ForgeFlow-Tenant: tenant} (null:
     * none, so a cluster-wide token acts across tenants); everything else, the token included, as this one. It shares
     * this client's connections and threads: closing it ends only its own event subscriptions, and it stops working
     * once this client is closed. For one call in another tenant: {@code client.withTenant("acme").listJobs()}.
     *
     * @throws IllegalArgumentException when the name cannot be sent in a header (the server checks the rest)
     */
    public ForgeFlowClient withTenant(String tenant) {
        return new ForgeFlowClient(this, Builder.headerValue(tenant));
    }

    /** The server's base URL as configured (never includes the token). */
    public String baseUrl() {
        return baseUrl.toString();
    }

    // ---------------------------------------------------------------- jobs

    /**
     * {@code POST /api/jobs}. With an idempotency key already used for the same body the server answers 200 with
     * the existing job ({@link SubmitResult#created()} false); with a different body it answers 409. A debounce that
     * joined the submission to an existing run answers 200 with that run's job and {@link SubmitResult#debouncedInto()}.
     */
    public SubmitResult submitJob(JobRequest request) {
        Objects.requireNonNull(request, "request");
        boolean replayable = request.idempotencyKey() != null && !request.idempotencyKey().isBlank();
        Exchange answer = send(new Request.Builder().url(url("api/jobs")).post(jsonBody(request)), replayable);
        JsonNode tree = read(answer, json.constructType(JsonNode.class));
        Job job = json.convertValue(tree, Job.class);
        JsonNode into = tree.get("debounced_into");
        return new SubmitResult(job, answer.code == 201, into == null || into.isNull() ? null : into.asText());
    }

    /** {@code GET /api/jobs?status=&limit=&cursor=}, newest first; null arguments are left out of the query. */
    public Page<Job> listJobs(String status, Integer limit, String cursor) {
        HttpUrl.Builder url = url("api/jobs").newBuilder();
        query(url, "status", status);
        query(url, "limit", limit == null ? null : limit.toString());
        query(url, "cursor", cursor);
        return read(get(url.build()), pageOf(Job.class));
    }

    /**
     * {@code GET /api/jobs} with filters ({@code status}, {@code queue}, {@code label=key:value} for each label,
     * {@code name_prefix}, {@code tenant}), newest first; a bad filter value is a 422 naming it ({@link ForgeFlowApiException}).
     */
    public Page<Job> listJobs(JobFilter filter, Integer limit, String cursor) {
        HttpUrl.Builder url = url("api/jobs").newBuilder();
        query(url, "status", filter.status);
        query(url, "queue", filter.queue);
        filter.labels.forEach((k, v) -> url.addQueryParameter("label", k + ":" + v));
        query(url, "name_prefix", filter.namePrefix);
        query(url, "tenant", filter.tenant);
        query(url, "limit", limit == null ? null : limit.toString());
        query(url, "cursor", cursor);
        return read(get(url.build()), pageOf(Job.class));
    }

    /** The first page of jobs, with the server's default limit. */
    public Page<Job> listJobs() {
        return listJobs((String) null, null, null);
    }

    /** {@code GET /api/jobs/{id}}, with its {@link Job#parents() parents} and {@link Job#children() children}. */
    public Job getJob(String id) {
        return read(get(url("api/jobs", id)), json.constructType(Job.class));
    }

    /** {@code POST /api/jobs/{id}/pause}: its pending runs become cancelled; no new ticks fire. */
    public Job pauseJob(String id) {
        return read(post(url("api/jobs", id, "pause")), json.constructType(Job.class));
    }

    /**
     * {@code POST /api/jobs/{id}/backfill}: one run per tick of the recurring job's schedule from {@code from} to
     * {@code to} (both included), none for a tick that already has a run; {@code overlap} {@code allow} (null: the
     * default) or {@code skip}/{@code queue_one} (one at a time). More than 10,000 ticks is a
     * {@link ForgeFlowApiException} 422 naming {@code to}.
     */
    public Backfill backfillJob(String id, Instant from, Instant to, String overlap) {
        java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("from", from == null ? null : from.toString());
        body.put("to", to == null ? null : to.toString());
        if (overlap != null) {
            body.put("overlap", overlap);
        }
        return read(send(new Request.Builder().url(url("api/jobs", id, "backfill")).post(jsonBody(body))),
                json.constructType(Backfill.class));
    }

    /** {@code GET /api/jobs/{id}/backfill/{backfill_id}}: the backfill with its runs counted by status. */
    public Backfill getBackfill(String id, String backfillId) {
        return read(get(url("api/jobs", id, "backfill", backfillId)), json.constructType(Backfill.class));
    }

    /**
     * {@code POST /api/jobs/{id}/pause} with a note saying why ({@link Job#pausedNote()}, at most 500 characters; null:
     * none); the server keeps the name of this client's token as {@link Job#pausedBy()}.
     */
    public Job pauseJob(String id, String note) {
        if (note == null) {
            return pauseJob(id);
        }
        return read(send(new Request.Builder().url(url("api/jobs", id, "pause")).post(jsonBody(java.util.Map.of("note", note)))),
                json.constructType(Job.class));
    }

    /** {@code POST /api/jobs/{id}/resume}: cron continues from now ({@code catch_up} applies). */
    public Job resumeJob(String id) {
        return read(post(url("api/jobs", id, "resume")), json.constructType(Job.class));
    }

    /** {@code POST /api/jobs/{id}/cancel}: permanent; pending runs cancelled, a running run asked to stop. */
    public Job cancelJob(String id) {
        return read(post(url("api/jobs", id, "cancel")), json.constructType(Job.class));
    }

    /** {@code POST /api/jobs/{id}/trigger}: enqueues a run right now, whatever the schedule; returns that run. */
    public Run triggerJob(String id) {
        return read(post(url("api/jobs", id, "trigger")), json.constructType(Run.class));
    }

    /**
     * {@code PATCH /api/jobs/{id}}: changes the fields {@code update} sets (validated as at submission: a
     * {@link ForgeFlowApiException} 422 names the field), recomputing the next run from now; with {@code keepPending}
     * ({@code ?pending=keep}) the pending runs keep their priority, queue and payload. Returns the changed job.
     */
    public Job updateJob(String id, JobUpdate update, boolean keepPending) {
        Objects.requireNonNull(update, "update");
        HttpUrl.Builder url = url("api/jobs", id).newBuilder();
        query(url, "pending", keepPending ? "keep" : null);
        return read(send(new Request.Builder().url(url.build()).patch(jsonBody(update.body()))),
                json.constructType(Job.class));
    }

    /** {@link #updateJob(String, JobUpdate, boolean)} whose pending runs follow the change. */
    public Job updateJob(String id, JobUpdate update) {
        return updateJob(id, update, false);
    }

    /**
     * {@code DELETE /api/jobs/{id}}: the job becomes a tombstone (status {@code deleted}), its pending runs are
     * cancelled; a running run makes it a 409 ({@code job_running}) unless {@code cancelRunning}. With {@code purge}
     * the job and its runs are removed for good and the result is empty; else it is the tombstone.
     */
    public java.util.Optional<Job> deleteJob(String id, boolean cancelRunning, boolean purge) {
        HttpUrl.Builder url = url("api/jobs", id).newBuilder();
        query(url, "cancel_running", cancelRunning ? "true" : null);
        query(url, "purge", purge ? "true" : null);
        Exchange answer = send(new Request.Builder().url(url.build()).delete());
        if (answer.code == 204) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(read(answer, json.constructType(Job.class)));
    }

    // ---------------------------------------------------------------- batches

    /**
     * {@code POST /api/batches}: creates every job of the batch in one transaction, or none (a
     * {@link ForgeFlowApiException} 422 names the field, e.g. {@code jobs[3].payload}). The answer holds the job ids
     * in the order of the request and the refs. With an idempotency key already used for the same body the server
     * answers 200 with that batch ({@link BatchSubmitResult#created()} false); with another body 409
     * ({@code idempotency_conflict}).
     */
    public BatchSubmitResult submitBatch(BatchRequest request) {
        Objects.requireNonNull(request, "request");
        Exchange answer = send(new Request.Builder().url(url("api/batches")).post(jsonBody(request.body())));
        Batch batch = read(answer, json.constructType(Batch.class));
        return new BatchSubmitResult(batch, answer.code == 201);
    }

    /** {@code GET /api/batches/{id}}: its progress, the counts of its jobs by their latest run's status. */
    public Batch getBatch(String id) {
        return read(get(url("api/batches", id)), json.constructType(Batch.class));
    }

    // ---------------------------------------------------------------- runs

    /**
     * {@code GET /api/runs?job_id=&status=&limit=&cursor=}, newest first; null arguments are left out.
     * {@code status = "dead"} is the dead-letter queue, {@code "waiting"} the runs waiting for their job's parents.
     */
    public Page<Run> listRuns(String jobId, String status, Integer limit, String cursor) {
        HttpUrl.Builder url = url("api/runs").newBuilder();
        query(url, "job_id", jobId);
        query(url, "status", status);
        query(url, "limit", limit == null ? null : limit.toString());
        query(url, "cursor", cursor);
        return read(get(url.build()), pageOf(Run.class));
    }

    /**
     * {@code GET /api/runs} with filters ({@code job_id}, {@code status}, {@code queue}, {@code label=key:value} for
     * each label, {@code scheduled_after}, {@code scheduled_before}, {@code finished_after}, {@code tenant}), newest
     * first.
     */
    public Page<Run> listRuns(RunFilter filter, Integer limit, String cursor) {
        HttpUrl.Builder url = url("api/runs").newBuilder();
        query(url, "job_id", filter.jobId);
        query(url, "status", filter.status);
        query(url, "queue", filter.queue);
        filter.labels.forEach((k, v) -> url.addQueryParameter("label", k + ":" + v));
        query(url, "scheduled_after", filter.scheduledAfter == null ? null : filter.scheduledAfter.toString());
        query(url, "scheduled_before", filter.scheduledBefore == null ? null : filter.scheduledBefore.toString());
        query(url, "finished_after", filter.finishedAfter == null ? null : filter.finishedAfter.toString());
        query(url, "tenant", filter.tenant);
        query(url, "limit", limit == null ? null : limit.toString());
        query(url, "cursor", cursor);
        return read(get(url.build()), pageOf(Run.class));
    }

    /** {@code GET /api/runs/{id}}, with its {@link Run#attempts() attempts}. */
    public Run getRun(String id) {
        return read(get(url("api/runs", id)), json.constructType(Run.class));
    }

    /** {@code POST /api/runs/{id}/requeue}: a dead or cancelled run goes back to pending with a fresh attempt budget. */
    public Run requeueRun(String id) {
        return read(post(url("api/runs", id, "requeue")), json.constructType(Run.class));
    }

    /** {@code POST /api/runs/{id}/cancel}: pending runs are cancelled at once; a running run is stopped by its worker. */
    public Run cancelRun(String id) {
        return read(post(url("api/runs", id, "cancel")), json.constructType(Run.class));
    }

    // ---------------------------------------------------------------- queues

    /** {@code GET /api/queues}: every known queue, by name, with its limits, pause switch and depth. */
    public List<Queue> queues() {
        Exchange answer = get(url("api/queues"));
        JsonNode tree = read(answer, json.constructType(JsonNode.class));
        // items since the release that made it a list like the others; queues before (kept as its alias for a release)
        JsonNode items = tree != null && tree.isObject() ? (tree.has("items") ? tree.get("items") : tree.get("queues")) : tree;
        if (items == null || items.isNull()) {
            return List.of();
        }
        try {
            return List.copyOf(json.readerFor(json.getTypeFactory().constructCollectionType(List.class, Queue.class))
                    .<List<Queue>>readValue(items));
        } catch (IOException e) {
            throw unreadable(answer, e);
        }
    }

    /** {@code GET /api/queues/{name}}; a name no job uses reads as an empty, open queue. */
    public Queue queue(String name) {
        return read(get(url("api/queues", name)), json.constructType(Queue.class));
    }

    /**
     * {@code PUT /api/queues/{name}}: applies the limits the update sets (a cleared one is removed), keeps the
     * others, and returns the queue. The limits hold cluster-wide from the next claim of every node.
     */
    public Queue configureQueue(String name, QueueUpdate update) {
        Objects.requireNonNull(update, "update");
        return read(send(new Request.Builder().url(url("api/queues", name)).put(jsonBody(update.body()))),
                json.constructType(Queue.class));
    }

    /** {@code POST /api/queues/{name}/pause}: no run of the queue starts on any node until it is resumed. */
    public Queue pauseQueue(String name) {
        return read(post(url("api/queues", name, "pause")), json.constructType(Queue.class));
    }

    /** {@code POST /api/queues/{name}/resume}: the queue's runs start again. */
    public Queue resumeQueue(String name) {
        return read(post(url("api/queues", name, "resume")), json.constructType(Queue.class));
    }

    // ---------------------------------------------------------------- tenants

    /**
     * {@code GET /api/tenants}: every known tenant, by name, with its weight, limits and load. Cluster-wide: a
     * tenant-bound token gets 403 {@code tenant_forbidden}.
     */
    public List<Tenant> tenants() {
        Exchange answer = get(url("api/tenants"));
        JsonNode tree = read(answer, json.constructType(JsonNode.class));
        JsonNode items = tree != null && tree.isObject() ? tree.get("items") : tree;
        if (items == null || items.isNull()) {
            return List.of();
        }
        try {
            return List.copyOf(json.readerFor(json.getTypeFactory().constructCollectionType(List.class, Tenant.class))
                    .<List<Tenant>>readValue(items));
        } catch (IOException e) {
            throw unreadable(answer, e);
        }
    }

    /** {@code GET /api/tenants/{name}}; a name nobody uses reads as an idle tenant of weight 1 without limits. */
    public Tenant tenant(String name) {
        return read(get(url("api/tenants", name)), json.constructType(Tenant.class));
    }

    /**
     * {@code PUT /api/tenants/{name}} (admin scope): applies the settings the update sets (a reset weight goes back
     * to 1, a cleared limit is removed), keeps the others, and returns the tenant. The weight counts in the claim's
     * fair share, the limits hold cluster-wide, both from the next claim of every node.
     */
    public Tenant configureTenant(String name, TenantUpdate update) {
        Objects.requireNonNull(update, "update");
        return read(send(new Request.Builder().url(url("api/tenants", name)).put(jsonBody(update.body()))),
                json.constructType(Tenant.class));
    }

    // ---------------------------------------------------------------- schedules

    /**
     * {@code GET /api/schedules/preview}: the next {@code count} fire times (1-100; null: 10) of {@code cronExpr}
     * in {@code timezone} (null: UTC) after {@code after} (null: now), as the scheduler computes them. A bad
     * expression or zone is a {@link ForgeFlowApiException} with status 422 naming {@code cron_expr} or
     * {@code timezone}.
     */
    public List<ScheduledFire> previewSchedule(String cronExpr, String timezone, Instant after, Integer count) {
        HttpUrl.Builder url = url("api/schedules/preview").newBuilder();
        query(url, "cron_expr", cronExpr);
        query(url, "timezone", timezone);
        return preview(url, after, count);
    }

    /**
     * {@code GET /api/schedules/preview?job_id=}: the next fires of a recurring job's own schedule, inside its
     * {@code start_at}..{@code end_at}, at most the runs its {@code max_runs} leaves, each moved by its jitter
     * ({@link ScheduledFire#tick()}, {@link ScheduledFire#jitterSeconds()}); the last fire is noted.
     */
    public List<ScheduledFire> previewJobSchedule(String jobId, Instant after, Integer count) {
        Objects.requireNonNull(jobId, "jobId");
        HttpUrl.Builder url = url("api/schedules/preview").newBuilder();
        query(url, "job_id", jobId);
        return preview(url, after, count);
    }

    private List<ScheduledFire> preview(HttpUrl.Builder url, Instant after, Integer count) {
        query(url, "after", after == null ? null : after.toString());
        query(url, "count", count == null ? null : count.toString());
        Exchange answer = get(url.build());
        JsonNode tree = read(answer, json.constructType(JsonNode.class));
        JsonNode items = tree == null ? null : tree.get("items");
        if (items == null || items.isNull()) {
            return List.of();
        }
        try {
            return List.copyOf(json.readerFor(json.getTypeFactory().constructCollectionType(List.class,
                    ScheduledFire.class)).without(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
                    .<List<ScheduledFire>>readValue(items));
        } catch (IOException e) {
            throw unreadable(answer, e);
        }
    }

    // ---------------------------------------------------------------- operations

    /** {@code GET /api/stats}: how many runs are in each status. */
    public Stats stats() {
        return read(get(url("api/stats")), json.constructType(Stats.class));
    }

    /** {@code GET /api/nodes}: the live nodes. Accepts {@code {"items": [...]}} as well as a bare array. */
    public List<Node> nodes() {
        Exchange answer = get(url("api/nodes"));
        JsonNode tree = read(answer, json.constructType(JsonNode.class));
        JsonNode items = tree != null && tree.isObject() ? tree.get("items") : tree;
        if (items == null || items.isNull()) {
            return List.of();
        }
        try {
            return List.copyOf(json.readerFor(json.getTypeFactory().constructCollectionType(List.class, Node.class))
                    .<List<Node>>readValue(items));
        } catch (IOException e) {
            throw unreadable(answer, e);
        }
    }

    /** {@code GET /healthz}: the process answers. Returns the reported status (e.g. {@code ok}). */
    public String health() {
        Exchange answer = get(url("healthz"));
        String status = textField(answer.body, "status");
        return status != null ? status : answer.body.trim();
    }

    /** {@code GET /readyz}: 200 ready, 503 not ready (with the server's reason); any other status throws. */
    public Readiness ready() {
        // its 503 is an answer (not ready), not a failure to retry
        Exchange answer = exchange(new Request.Builder().url(url("readyz")).get(), "application/json", false);
        if (answer.code == 503) {
            String error = textField(answer.body, "error");
            return new Readiness(false, error != null ? error : answer.body.trim());
        }
        requireSuccess(answer);
        String status = textField(answer.body, "status");
        return new Readiness(true, status != null ? status : answer.body.trim());
    }

    /** {@code GET /metrics}: the Prometheus text exposition, as is. */
    public String metrics() {
        Exchange answer = exchange(new Request.Builder().url(url("metrics")).get(), "text/plain", true);
        requireSuccess(answer);
        return answer.body;
    }

    /**
     * {@code GET /api/events}: calls onEvent for each run state change until the returned subscription is closed,
     * reconnecting with {@code Last-Event-ID} after network failures. Failures are not reported; use
     * {@link #subscribe(RunEventListener)} to learn about them (and about a server without the route).
     */
    public EventSubscription events(Consumer<RunEvent> onEvent) {
        Objects.requireNonNull(onEvent, "onEvent");
        return subscribe(onEvent::accept);
    }

    /** {@code GET /api/events} with a listener that also hears when the stream opens and when it fails. */
    public EventSubscription subscribe(RunEventListener listener) {
        Objects.requireNonNull(listener, "listener");
        EventStream stream = new EventStream(this, listener, eventRetry);
        subscriptions.add(stream);
        stream.start();
        return stream;
    }

    /** Closes every event subscription and, when this client created its own OkHttp client, its threads and pool. */
    @Override
    public void close() {
        for (EventStream stream : new ArrayList<>(subscriptions)) {
            stream.close();
        }
        if (ownsHttp) {
            http.dispatcher().executorService().shutdown();
            http.connectionPool().evictAll();
        }
    }

    @Override
    public String toString() {
        return "ForgeFlowClient[" + baseUrl + (tenant == null ? "" : ", tenant " + tenant) + "]";
    }

    // ---------------------------------------------------------------- plumbing shared with EventStream

    OkHttpClient streamingHttp() {
        return streaming;
    }

    ObjectMapper json() {
        return json;
    }

    HttpUrl url(String path, String... segments) {
        HttpUrl.Builder url = baseUrl.newBuilder().addPathSegments(path);
        for (String segment : segments) {
            if (segment == null || segment.isEmpty()) {
                throw new IllegalArgumentException("ids and queue names must not be empty");
            }
            url.addPathSegment(segment);
        }
        return url.build();
    }

    void forget(EventStream stream) {
        subscriptions.remove(stream);
    }

    /** The API's error for a non-2xx answer: its {@code error} and {@code field}, or a description of the body. */
    ForgeFlowApiException apiError(int code, String message, String body) {
        String error = null;
        String field = null;
        String errorCode = null;
        try {
            JsonNode tree = body == null || body.isBlank() ? null : json.readTree(body);
            if (tree != null && tree.isObject()) {
                error = text(tree.get("error"));
                field = text(tree.get("field"));
                errorCode = text(tree.get("code"));
            }
        } catch (JsonProcessingException notJson) {
            // fall through to the generic description
        }
        if (error == null || error.isBlank()) {
            String snippet = body == null ? "" : body.strip();
            if (snippet.length() > 200) {
                snippet = snippet.substring(0, 200) + "…";
            }
            error = "HTTP " + code + (message == null || message.isBlank() ? "" : " " + message)
                    + (snippet.isEmpty() ? "" : ": " + snippet);
        }
        return new ForgeFlowApiException(code, error, field, errorCode);
    }

    ForgeFlowUnavailableException unavailable(IOException e) {
        return new ForgeFlowUnavailableException(baseUrl(), e);
    }

    /** Adds name=value unless value is null or empty (OkHttp would send a bare {@code name}). */
    private static void query(HttpUrl.Builder url, String name, String value) {
        if (value != null && !value.isEmpty()) {
            url.addQueryParameter(name, value);
        }
    }

    private JavaType pageOf(Class<?> item) {
        return json.getTypeFactory().constructParametricType(Page.class, item);
    }

    private RequestBody jsonBody(Object value) {
        try {
            return RequestBody.create(json.writeValueAsBytes(value), JSON);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write the request as JSON: " + e.getOriginalMessage(), e);
        }
    }

    private Exchange get(HttpUrl url) {
        return send(new Request.Builder().url(url).get());
    }

    /** Action routes take no body; an empty body without a content type is read as JSON by the server. */
    private Exchange post(HttpUrl url) {
        return send(new Request.Builder().url(url).post(EMPTY));
    }

    /** Sends the request; a GET is retried on 503 and connection failures, other methods are not. */
    private Exchange send(Request.Builder request) {
        return send(request, "GET".equals(request.build().method()));
    }

    private Exchange send(Request.Builder request, boolean replayable) {
        Exchange answer = exchange(request, "application/json", replayable);
        requireSuccess(answer);
        return answer;
    }

    private void requireSuccess(Exchange answer) {
        if (answer.code < 200 || answer.code > 299) {
            throw apiError(answer.code, answer.message, answer.body);
        }
    }

    /**
     * One call, sent again while it is {@code replayable} and the node answers 503 or the connection fails before an
     * answer (not a timeout: that call already used its time), at most {@code maxRetries} times.
     */
    private Exchange exchange(Request.Builder request, String accept, boolean replayable) {
        Request built = request.header("Accept", accept).build();
        for (int retry = 0; ; retry++) {
            boolean last = !replayable || retry >= maxRetries;
            Long retryAfter = null;
            try (Response response = http.newCall(built).execute()) {
                ResponseBody body = response.body();
                Exchange answer = new Exchange(response.code(), response.message(), body == null ? "" : body.string());
                if (answer.code != 503 || last) {
                    return answer;
                }
                retryAfter = retryAfterSeconds(response.header("Retry-After"));
            } catch (java.io.InterruptedIOException timeout) {
                throw unavailable(timeout);
            } catch (IOException e) {
                if (last) {
                    throw unavailable(e);
                }
            }
            if (!pause(retry + 1, retryAfter)) {
                throw unavailable(new java.io.InterruptedIOException("interrupted while waiting to retry "
                        + built.method() + " " + built.url().encodedPath()));
            }
        }
    }

    /**
     * Waits before retry {@code n} (from 1): random(0, min(cap, base * 2^(n-1))), but not less than the server's
     * {@code Retry-After} (itself at most the cap). False when interrupted (the interrupt is kept).
     */
    private boolean pause(int n, Long retryAfterSeconds) {
        long cap = retryCap.toMillis();
        long ceiling = Math.min(cap, retryBase.toMillis() << Math.min(n - 1, 20));
        long wait = ceiling <= 0 ? 0 : java.util.concurrent.ThreadLocalRandom.current().nextLong(ceiling + 1);
        if (retryAfterSeconds != null) {
            wait = Math.max(wait, Math.min(cap, retryAfterSeconds * 1000));
        }
        try {
            Thread.sleep(wait);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code Retry-After} in whole seconds; null when absent or an HTTP date (the backoff alone decides then). */
    private static Long retryAfterSeconds(String header) {
        if (header == null) {
            return null;
        }
        try {
            long seconds = Long.parseLong(header.trim());
            return seconds < 0 ? null : seconds;
        } catch (NumberFormatException notSeconds) {
            return null;
        }
    }

    private <T> T read(Exchange answer, JavaType type) {
        try {
            return json.readValue(answer.body, type);
        } catch (IOException e) {
            throw unreadable(answer, e);
        }
    }

    private ForgeFlowApiException unreadable(Exchange answer, IOException e) {
        String detail = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        return new ForgeFlowApiException(answer.code, "the server's answer is not the JSON API.md describes: " + detail,
                null);
    }

    private String textField(String body, String name) {
        try {
            JsonNode tree = json.readTree(body);
            return tree != null && tree.isObject() ? text(tree.get(name)) : null;
        } catch (JsonProcessingException notJson) {
            return null;
        }
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }

    private record Exchange(int code, String message, String body) {
    }

    /** Settings of a {@link ForgeFlowClient}. */
    public static final class Builder {
        private final HttpUrl baseUrl;
        private String token;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration readTimeout = Duration.ofSeconds(30);
        private Duration callTimeout = Duration.ofSeconds(60);
        private Duration eventReadTimeout = Duration.ZERO;
        private Duration eventRetry = Duration.ofSeconds(2);
        private OkHttpClient okHttpClient;
        private int maxRetries = 5;
        private Duration retryBase = Duration.ofMillis(250);
        private Duration retryCap = Duration.ofSeconds(4);
        private String tenant;

        private Builder(String baseUrl) {
            Objects.requireNonNull(baseUrl, "baseUrl");
            HttpUrl parsed = HttpUrl.parse(baseUrl.trim());
            if (parsed == null) {
                throw new IllegalArgumentException("not an http(s) URL: '" + baseUrl
                        + "' (write it like http://127.0.0.1:8080)");
            }
            this.baseUrl = parsed;
        }

        /** An API token, sent as {@code Authorization: Bearer <token>}; null or blank sends none. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /**
         * The tenant every request acts in, sent as {@code X-ForgeFlow-Tenant} (null or blank: none). With a
         * cluster-wide token it scopes submissions, lists and id lookups to that tenant (another tenant's id answers
         * 404); without it such a token lists every tenant and submits to {@code default}. A tenant-bound token always
         * acts in its own tenant, and naming another is a 403 ({@code tenant_forbidden}). The name is not checked here
         * (the server answers 422 {@code validation_failed}), except that it must be sendable as a header.
         *
         * @throws IllegalArgumentException when the name holds characters a header cannot carry
         */
        public Builder tenant(String tenant) {
            this.tenant = headerValue(tenant);
            return this;
        }

        /** Trimmed, null when blank; refuses what OkHttp would refuse at the first call. */
        static String headerValue(String tenant) {
            if (tenant == null || tenant.isBlank()) {
                return null;
            }
            String value = tenant.trim();
            try {
                new okhttp3.Headers.Builder().add(TENANT_HEADER, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("a tenant name cannot be sent as " + TENANT_HEADER + ": "
                        + e.getMessage(), e);
            }
            return value;
        }

        /** Time to establish a TCP connection; default 5 s. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Longest silence while reading or writing one request; default 30 s. */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Longest time for one whole call, connection to last byte; default 60 s; zero means none. */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Longest silence on the event stream before it is reconnected; default zero (none). */
        public Builder eventReadTimeout(Duration timeout) {
            this.eventReadTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** Wait before reconnecting the event stream, unless the server sends {@code retry:}; default 2 s. */
        public Builder eventRetry(Duration retry) {
            this.eventRetry = Objects.requireNonNull(retry, "retry");
            return this;
        }

        /**
         * How many times a call that is safe to repeat (a GET; a submission with an {@code idempotency_key}) is sent
         * again after a 503 or a failed connection; default 5, 0 for never.
         */
        public Builder retries(int retries) {
            if (retries < 0) {
                throw new IllegalArgumentException("retries must be at least 0, was " + retries);
            }
            this.maxRetries = retries;
            return this;
        }

        /**
         * The wait before retry n: random(0, min(cap, base * 2^(n-1))) and at least the server's {@code Retry-After}
         * (up to {@code cap}); default base 250 ms, cap 4 s.
         */
        public Builder retryBackoff(Duration base, Duration cap) {
            Objects.requireNonNull(base, "base");
            Objects.requireNonNull(cap, "cap");
            if (base.isNegative() || cap.isNegative() || base.compareTo(cap) > 0) {
                throw new IllegalArgumentException("retry backoff needs 0 <= base <= cap, was " + base + " and " + cap);
            }
            this.retryBase = base;
            this.retryCap = cap;
            return this;
        }

        /** Share an existing OkHttp client (its pool and threads); this client then leaves it open on close. */
        public Builder okHttpClient(OkHttpClient client) {
            this.okHttpClient = client;
            return this;
        }

        public ForgeFlowClient build() {
            return new ForgeFlowClient(this);
        }

        @Override
        public String toString() {
            return "ForgeFlowClient.Builder[" + baseUrl + ", token " + (token == null || token.isBlank() ? "none" : "set")
                    + (tenant == null ? "" : ", tenant " + tenant) + "]";
        }
    }
}
