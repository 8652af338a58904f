package io.forgeflow.admin.testing;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.forgeflow.client.Attempt;
import io.forgeflow.client.Job;
import io.forgeflow.client.Node;
import io.forgeflow.client.Run;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A ForgeFlow server in miniature on loopback (the JDK's HttpServer) speaking API.md from memory: jobs, runs with
 * attempts, the state transitions with their 409s, validation 422s, cursor paging, stats and nodes. Scripts for
 * the UI tests: an optional API token (401 without it), an event stream that is off (404, like a server that does not
 * implement it yet) or on (SSE the test feeds), and stalls that hold requests until released.
 */
public final class ScriptedServer implements AutoCloseable {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();

    private final HttpServer http;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "scripted-server");
        t.setDaemon(true);
        return t;
    });
    private final List<Job> jobs = new ArrayList<>();
    private final List<Run> runs = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<OutputStream> streams = new CopyOnWriteArrayList<>();
    private final List<Stall> stalls = new CopyOnWriteArrayList<>();
    /** trace_id and trace_url by run id. */
    private final Map<String, List<String>> traces = new java.util.HashMap<>();
    /** Workflows: depends_on, on_parent_failure and batch_id by job id, batches by id (as their JSON). */
    private final Map<String, List<String>> dependsOn = new java.util.HashMap<>();
    private final Map<String, String> policies = new java.util.HashMap<>();
    private final Map<String, String> batchOf = new java.util.HashMap<>();
    private final Map<String, Map<String, Object>> batches = new java.util.HashMap<>();
    /** Tenants' settings and load by name (GET and PUT /api/tenants, API.md's contract); default always. */
    private final Map<String, io.forgeflow.client.Tenant> tenants = new java.util.TreeMap<>(Map.of("default",
            new io.forgeflow.client.Tenant("default", 1, null, null, 0, 0, 0)));
    /** The body of the last POST /api/jobs. */
    private volatile String lastSubmission;
    private volatile String token;
    /** Queues by tenant, then name (GET, PUT and pause/resume of /api/queues, in the request's tenant). */
    private final Map<String, io.forgeflow.client.Queue> queues = new java.util.TreeMap<>();
    /** Tenants (issue 42): a token bound to a tenant, and the X-ForgeFlow-Tenant header of each /api/ request. */
    private volatile String boundToken;
    private volatile String boundTenant;
    private final List<String> tenantHeaders = new CopyOnWriteArrayList<>();
    /** The tenant the request being routed acts in (the bound token's, else its header's), or null for all. */
    private static final ThreadLocal<String> ACTING = new ThreadLocal<>();
    private volatile boolean sse;
    private int nextJob = 1;
    private int nextRun = 1;
    private int nextEvent = 1;
    private Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);

    private record Stall(Predicate<String> matches, CountDownLatch release) {
    }

    public ScriptedServer() {
        try {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a loopback port", e);
        }
        http.setExecutor(pool);
        http.createContext("/", this::handle);
        http.start();
    }

    public String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort();
    }

    /** Requests must carry {@code Authorization: Bearer token}; 401 otherwise. */
    public ScriptedServer requireToken(String token) {
        this.token = token;
        return this;
    }

    /**
     * A second token, bound to tenant: lists answer it only that tenant's jobs, runs and queues, and the cluster-wide
     * routes (stats, nodes, tenants, events) and another tenant's header answer it 403 {@code tenant_forbidden}, as a node does.
     */
    public ScriptedServer bindToken(String boundTo, String tenant) {
        this.boundToken = boundTo;
        this.boundTenant = tenant;
        return this;
    }

    /** A queue as GET /api/queues lists it (a null tenant is the default one's). */
    public synchronized ScriptedServer withQueue(io.forgeflow.client.Queue q) {
        String in = q.tenant() == null ? "default" : q.tenant();
        queues.put(in + "\u0000" + q.name(), inTenant(q, in));
        return this;
    }

    /** Tenant's queue of that name as this server has it, or null. */
    public synchronized io.forgeflow.client.Queue queue(String tenant, String name) {
        return queues.get(tenant + "\u0000" + name);
    }

    /** A tenant as GET /api/tenants lists it. */
    public synchronized ScriptedServer withTenant(io.forgeflow.client.Tenant tenant) {
        tenants.put(tenant.name(), tenant);
        return this;
    }

    public synchronized io.forgeflow.client.Tenant tenant(String name) {
        return tenants.get(name);
    }

    /** The X-ForgeFlow-Tenant header of every /api/ request so far ("-" for none), in order. */
    public List<String> tenantHeaders() {
        return tenantHeaders;
    }

    /** Moves a job and its runs into tenant: they are then sent with {@code "tenant"} and listed only in it. */
    public synchronized void moveToTenant(String jobId, String tenant) {
        jobs.replaceAll(j -> j.id().equals(jobId) ? Fixtures.inTenant(j, tenant) : j);
        runs.replaceAll(r -> r.jobId().equals(jobId) ? Fixtures.inTenant(r, tenant) : r);
    }

    private static boolean inActing(String tenant) {
        String acting = ACTING.get();
        return acting == null || acting.equals(tenant == null ? "default" : tenant);
    }

    /** Serves {@code GET /api/events} as an event stream fed by {@link #emit}; off by default (404). */
    public ScriptedServer enableEvents() {
        this.sse = true;
        return this;
    }

    /** Holds every request whose "METHOD /path" starts with prefix until the returned latch is counted down. */
    public CountDownLatch stall(String prefix) {
        CountDownLatch latch = new CountDownLatch(1);
        stalls.add(new Stall(r -> r.startsWith(prefix), latch));
        return latch;
    }

    /** "METHOD /path?query" of every request so far. */
    public List<String> requests() {
        return requests;
    }

    public synchronized Instant now() {
        return now;
    }

    // ---------------------------------------------------------------- seeding and scripting

    public synchronized Job addJob(String name, String executor, Map<String, Object> payload, String cron,
                                   String zone, String status) {
        Job job = new Job("job_" + nextJob++, name, executor, payload, cron, null, zone, 5, 3, 300, "skip", null,
                status, status.equals(Job.ACTIVE) ? nextFire(cron, zone) : null, now.minusSeconds(86_400),
                now.minusSeconds(3600));
        jobs.add(job);
        return job;
    }

    public synchronized Run addRun(String jobId, String status, String output, String error, List<Attempt> attempts,
                                   Instant at) {
        boolean finished = status.equals(Run.SUCCEEDED) || status.equals(Run.DEAD) || status.equals(Run.CANCELLED);
        boolean started = finished || status.equals(Run.RUNNING);
        Instant startedAt = !started ? null : attempts.isEmpty() ? at.plusSeconds(1) : attempts.get(0).startedAt();
        Instant lastEnd = attempts.isEmpty() ? null : attempts.get(attempts.size() - 1).finishedAt();
        Instant finishedAt = !finished ? null : lastEnd != null ? lastEnd : at.plusSeconds(4);
        Run run = new Run("run_" + nextRun++, jobId, status, attempts.isEmpty() ? (started ? 1 : 0) : attempts.size(),
                3, 5, at, startedAt, finishedAt,
                status.equals(Run.RUNNING) ? "node-a" : null, status.equals(Run.RUNNING) ? at.plusSeconds(30) : null,
                output, error, List.copyOf(attempts));
        runs.add(run);
        return run;
    }

    /** count succeeded runs of a job, one minute apart, the newest last. */
    public synchronized void addManyRuns(String jobId, int count) {
        Instant start = now.minusSeconds(60L * count);
        for (int i = 0; i < count; i++) {
            Instant at = start.plusSeconds(60L * i);
            runs.add(new Run("run_" + nextRun++, jobId, Run.SUCCEEDED, 1, 3, 5, at, at.plusSeconds(1),
                    at.plusSeconds(2), null, null, "ok " + i, null, List.of()));
        }
    }

    /** The run carries this trace (and trace_url, when the node knows a viewer: null for none). */
    public synchronized void traceRun(String runId, String traceId, String traceUrl) {
        traces.put(runId, java.util.Arrays.asList(traceId, traceUrl));
    }

    /** Moves a job to a queue and gives it labels (its runs carry them too). */
    public synchronized Job relabel(String jobId, String queue, Map<String, String> labels) {
        Job j = job(jobId);
        Job changed = new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(),
                j.priority(), j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), j.status(),
                j.nextRunAt(), j.createdAt(), j.updatedAt(), queue, j.concurrencyKey(), j.maxConcurrent(),
                j.overlap(), j.waitingFor(), j.retry(), labels);
        jobs.set(jobs.indexOf(j), changed);
        return changed;
    }

    /** The job's notices go there (issue 45); null: none. */
    public synchronized Job notices(String jobId, io.forgeflow.client.Notify notices) {
        Job j = job(jobId);
        Job changed = new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(),
                j.priority(), j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), j.status(),
                j.nextRunAt(), j.createdAt(), j.updatedAt(), j.queue(), j.concurrencyKey(), j.maxConcurrent(),
                j.overlap(), j.waitingFor(), j.retry(), j.labels(), j.traceId(), j.dependsOn(), j.onParentFailure(),
                j.batchId(), j.parents(), j.children(), j.startAt(), j.endAt(), j.maxRuns(), j.jitterSeconds(),
                j.pauseAfterFailures(), j.firedRuns(), j.pausedNote(), j.pausedBy(), j.sequenceKey(), j.onDead(),
                notices);
        jobs.set(jobs.indexOf(j), changed);
        return changed;
    }

    /** The child waits for the parents (policy null: the default, cancel). */
    public synchronized void link(String childId, String policy, String... parentIds) {
        dependsOn.put(childId, List.of(parentIds));
        if (policy != null) {
            policies.put(childId, policy);
        }
    }

    /** A batch as GET /api/batches/{id} answers it; the jobs given were made by it. */
    public synchronized void addBatch(String id, String name, long[] waitingPendingRunningSucceededDeadCancelled,
                                      String onCompleteJobId, String status, String... jobIds) {
        long[] n = waitingPendingRunningSucceededDeadCancelled;
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("id", id);
        b.put("name", name);
        b.put("idempotency_key", null);
        b.put("created_at", now.minusSeconds(600).toString());
        b.put("completed_at", "completed".equals(status) ? now.toString() : null);
        b.put("total", java.util.Arrays.stream(n).sum());
        String[] keys = {"waiting", "pending", "running", "succeeded", "dead", "cancelled"};
        for (int i = 0; i < keys.length; i++) {
            b.put(keys[i], n[i]);
        }
        b.put("on_complete_job_id", onCompleteJobId);
        b.put("status", status);
        batches.put(id, b);
        for (String jobId : jobIds) {
            batchOf.put(jobId, id);
        }
    }

    /** The JSON body of the last job submission. */
    public String lastSubmission() {
        return lastSubmission;
    }

    public synchronized void addNode(Node node) {
        nodes.add(node);
    }

    /** A worker changed a run (and the stream, when on, says so). */
    public void changeRun(String runId, String status, String error) {
        Run changed;
        String before;
        synchronized (this) {
            int i = indexOfRun(runId);
            Run r = runs.get(i);
            before = r.status();
            changed = new Run(r.id(), r.jobId(), status, Math.max(1, r.attempt()), r.maxAttempts(), r.priority(),
                    r.scheduledFor(), r.startedAt() == null ? now : r.startedAt(), now, null, null,
                    r.output(), error, r.attempts());
            runs.set(i, changed);
        }
        emit(changed, before);
    }

    public synchronized Job job(String id) {
        return jobs.stream().filter(j -> j.id().equals(id)).findFirst().orElse(null);
    }

    public synchronized Job jobNamed(String name) {
        return jobs.stream().filter(j -> j.name().equals(name)).findFirst().orElse(null);
    }

    public synchronized Run run(String id) {
        int i = indexOfRun(id);
        return i < 0 ? null : runs.get(i);
    }

    public synchronized List<Run> runsOf(String jobId) {
        return runs.stream().filter(r -> r.jobId().equals(jobId)).toList();
    }

    /** Sends a run event to every open stream. */
    public void emit(Run run, String previousStatus) {
        if (!sse) {
            return;
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("run_id", run.id());
        data.put("job_id", run.jobId());
        data.put("status", run.status());
        data.put("previous_status", previousStatus);
        data.put("at", now().toString());
        String event;
        synchronized (this) {
            event = "id: " + nextEvent++ + "\nevent: run\ndata: " + write(data) + "\n\n";
        }
        for (OutputStream out : streams) {
            try {
                out.write(event.getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException gone) {
                streams.remove(out);
            }
        }
    }

    /** Whether a client holds the event stream open. */
    public boolean hasEventListener() {
        return !streams.isEmpty();
    }

    @Override
    public void close() {
        stalls.forEach(s -> s.release.countDown());
        for (OutputStream out : streams) {
            try {
                out.close();
            } catch (IOException ignored) {
                // the client is gone already
            }
        }
        http.stop(0);
        pool.shutdownNow();
    }

    // ---------------------------------------------------------------- HTTP

    private void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        String query = exchange.getRequestURI().getRawQuery();
        String line = method + " " + path + (query == null ? "" : "?" + query);
        requests.add(line);
        try {
            for (Stall stall : stalls) {
                if (stall.matches.test(line)) {
                    stall.release.await(30, TimeUnit.SECONDS);
                }
            }
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            String named = exchange.getRequestHeaders().getFirst("X-ForgeFlow-Tenant");
            boolean bound = boundToken != null && ("Bearer " + boundToken).equals(auth);
            if (path.startsWith("/api/")) {
                tenantHeaders.add(named == null ? "-" : named);
            }
            if (bound && named != null && !named.equals(boundTenant)) {
                send(exchange, 403, forbidden("this token acts in tenant '" + boundTenant + "' only and may not name "
                        + "tenant '" + named + "': use a token of that tenant, or a cluster-wide one", "tenant"));
                return;
            }
            if (bound && (path.equals("/api/stats") || path.equals("/api/nodes") || path.equals("/api/events")
                    || path.startsWith("/api/tenants"))) {
                send(exchange, 403, forbidden("this token acts in tenant '" + boundTenant + "' only, and " + method
                        + " " + path.substring(1) + " is cluster-wide: use a cluster-wide token", null));
                return;
            }
            ACTING.set(bound ? boundTenant : named);
            if (token != null && path.startsWith("/api/") && !bound) {
                if (!("Bearer " + token).equals(auth)) {
                    send(exchange, 401, error("missing or invalid API token: send Authorization: Bearer <token>", null));
                    return;
                }
            }
            if (path.equals("/api/events") && method.equals("GET")) {
                events(exchange);
                return;
            }
            byte[] body = exchange.getRequestBody().readAllBytes();
            Answer answer = route(method, path, parse(query), labelsOf(query), body);
            send(exchange, answer.status, answer.body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.close();
        } catch (RuntimeException e) {
            send(exchange, 500, error("scripted server bug: " + e, null));
        }
    }

    private void events(HttpExchange exchange) throws IOException {
        if (!sse) {
            send(exchange, 404, error("HTTP 404 Not Found", null));
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        out.write(": connected\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        streams.add(out);
    }

    private record Answer(int status, String body) {
    }

    private synchronized Answer route(String method, String path, Map<String, String> q, Map<String, String> labels,
                                      byte[] body) {
        String[] p = path.split("/");
        boolean get = method.equals("GET");
        boolean post = method.equals("POST");
        if (get && path.equals("/healthz")) {
            return ok(Map.of("status", "ok"));
        }
        if (get && path.equals("/readyz")) {
            return ok(Map.of("status", "ready"));
        }
        if (get && path.equals("/api/stats")) {
            return ok(stats());
        }
        if (get && path.equals("/api/nodes")) {
            return ok(Map.of("items", nodes));
        }
        if (get && path.equals("/api/schedules/preview")) {
            return preview(q);
        }
        if (get && path.equals("/api/tenants")) {
            return ok(Map.of("items", List.copyOf(tenants.values())));
        }
        if (method.equals("PUT") && p.length == 4 && p[1].equals("api") && p[2].equals("tenants")) {
            return configureTenant(p[3], body);
        }
        if (get && path.equals("/api/queues")) {
            return ok(Map.of("items", queues.values().stream().filter(x -> inActing(x.tenant())).toList()));
        }
        if (p.length >= 4 && p[1].equals("api") && p[2].equals("queues")) {
            String in = ACTING.get() == null ? "default" : ACTING.get();
            io.forgeflow.client.Queue was = queues.getOrDefault(in + "\u0000" + p[3],
                    new io.forgeflow.client.Queue(p[3], false, null, null, 0, 0, 0, 0, 0, in));
            if (method.equals("PUT") && p.length == 4) {
                return configureQueue(was, body);
            }
            if (post && p.length == 5 && (p[4].equals("pause") || p[4].equals("resume"))) {
                io.forgeflow.client.Queue after = new io.forgeflow.client.Queue(was.name(), p[4].equals("pause"),
                        was.maxRunning(), was.rateLimit(), was.pending(), was.due(), was.running(), was.lagSeconds(),
                        was.startsInWindow(), in);
                queues.put(in + "\u0000" + was.name(), after);
                return ok(after);
            }
        }
        if (path.equals("/api/jobs")) {
            if (get) {
                List<Job> newest = new ArrayList<>(jobs);
                Collections.reverse(newest);
                String status = q.get("status");
                String queue = q.get("queue");
                String prefix = q.get("name_prefix");
                return page(newest.stream().filter(j -> status == null ? !j.status().equals(Job.DELETED)
                        : j.status().equals(status)).filter(j -> queue == null || j.queue().equals(queue))
                        .filter(j -> prefix == null || j.name().startsWith(prefix))
                        .filter(j -> j.labels().entrySet().containsAll(labels.entrySet()))
                        .filter(j -> inActing(j.tenant())).toList(), q);
            }
            if (post) {
                return submit(body);
            }
        }
        if (p.length >= 4 && p[1].equals("api") && p[2].equals("jobs")) {
            Job job = job(p[3]);
            if (job == null) {
                return new Answer(404, error("no job with id " + p[3], null));
            }
            if (get && p.length == 4) {
                return ok(withWorkflow(job, true));
            }
            if (post && p.length == 5 && p[4].equals("backfill")) {
                return backfill(job, body);
            }
            if (get && p.length == 6 && p[4].equals("backfill")) {
                Map<String, Object> bf = backfills.get(p[5]);
                return bf == null || !job.id().equals(bf.get("job_id"))
                        ? new Answer(404, error("no backfill with id " + p[5], null)) : new Answer(200, write(bf));
            }
            if (post && p.length == 5) {
                return jobAction(job, p[4]);
            }
            if (method.equals("PATCH") && p.length == 4) {
                return patch(job, body);
            }
            if (method.equals("DELETE") && p.length == 4) {
                return delete(job, "true".equals(q.get("cancel_running")));
            }
        }
        if (get && p.length == 4 && p[1].equals("api") && p[2].equals("batches")) {
            Map<String, Object> batch = batches.get(p[3]);
            return batch == null ? new Answer(404, error("no batch with id " + p[3], null)) : ok(batch);
        }
        if (get && path.equals("/api/runs")) {
            List<Run> newest = new ArrayList<>(runs);
            Collections.reverse(newest);
            String jobId = q.get("job_id");
            String status = q.get("status");
            String queue = q.get("queue");
            Instant after = q.containsKey("scheduled_after") ? Instant.parse(q.get("scheduled_after")) : null;
            Instant before = q.containsKey("scheduled_before") ? Instant.parse(q.get("scheduled_before")) : null;
            Instant finished = q.containsKey("finished_after") ? Instant.parse(q.get("finished_after")) : null;
            return page(newest.stream().filter(r -> jobId == null || r.jobId().equals(jobId))
                    .filter(r -> inActing(r.tenant()))
                    .filter(r -> status == null || r.status().equals(status))
                    .filter(r -> queue == null || job(r.jobId()).queue().equals(queue))
                    .filter(r -> job(r.jobId()).labels().entrySet().containsAll(labels.entrySet()))
                    .filter(r -> after == null || r.scheduledFor().isAfter(after))
                    .filter(r -> before == null || r.scheduledFor().isBefore(before))
                    .filter(r -> finished == null || (r.finishedAt() != null && r.finishedAt().isAfter(finished)))
                    .map(ScriptedServer::withoutAttempts).map(this::traced).toList(), q);
        }
        if (p.length >= 4 && p[1].equals("api") && p[2].equals("runs")) {
            int i = indexOfRun(p[3]);
            if (i < 0) {
                return new Answer(404, error("no run with id " + p[3], null));
            }
            if (get && p.length == 4) {
                return ok(traced(runs.get(i)));
            }
            if (post && p.length == 5) {
                return runAction(i, p[4]);
            }
        }
        return new Answer(404, error("HTTP 404 Not Found", null));
    }

    /** A job as JSON with its workflow fields, and with parents and children as GET /api/jobs/{id} has them. */
    private Map<String, Object> withWorkflow(Job job, boolean links) {
        Map<String, Object> json = JSON.convertValue(job, new TypeReference<LinkedHashMap<String, Object>>() { });
        List<String> parents = dependsOn.getOrDefault(job.id(), List.of());
        json.put("depends_on", parents);
        json.put("on_parent_failure", parents.isEmpty() ? null : policies.getOrDefault(job.id(), "cancel"));
        json.put("batch_id", batchOf.get(job.id()));
        if (links) {
            json.put("parents", parents.stream().map(this::linked).toList());
            json.put("children", dependsOn.entrySet().stream().filter(e -> e.getValue().contains(job.id()))
                    .map(Map.Entry::getKey).sorted().map(this::linked).toList());
        }
        return json;
    }

    private Map<String, Object> linked(String jobId) {
        Job job = job(jobId);
        List<Run> of = runsOf(jobId);
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("id", jobId);
        node.put("name", job == null ? null : job.name());
        node.put("status", job == null ? null : job.status());
        node.put("run_status", of.isEmpty() ? null : of.get(of.size() - 1).status());
        return node;
    }

    /** A run as JSON, with its trace fields. */
    private Map<String, Object> traced(Run run) {
        Map<String, Object> json = JSON.convertValue(run, new TypeReference<LinkedHashMap<String, Object>>() { });
        List<String> trace = traces.get(run.id());
        json.put("trace_id", trace == null ? null : trace.get(0));
        json.put("trace_url", trace == null ? null : trace.get(1));
        return json;
    }

    /** PATCH /api/jobs/{id}: the fields given change; 422 naming a field out of range, 409 for a job that cannot. */
    @SuppressWarnings("unchecked")
    private Answer patch(Job j, byte[] body) {
        Map<String, Object> in;
        try {
            in = JSON.readValue(body, new TypeReference<>() { });
        } catch (IOException e) {
            return new Answer(400, error("malformed JSON: " + e.getMessage(), null));
        }
        if (j.status().equals(Job.CANCELLED) || j.status().equals(Job.DELETED)) {
            return new Answer(409, error("job " + j.id() + " is " + j.status() + " and cannot be changed", null));
        }
        if (in.containsKey("executor") || in.containsKey("idempotency_key")) {
            return new Answer(422, error("executor and idempotency_key are fixed at submission",
                    in.containsKey("executor") ? "executor" : "idempotency_key"));
        }
        for (String[] range : new String[][] {{"priority", "1", "9"}, {"max_attempts", "1", "100"},
                {"timeout_seconds", "1", "86400"}, {"max_runs", "1", "1000000"}, {"jitter_seconds", "0", "86400"},
                {"pause_after_failures", "1", "1000"}}) {
            Object v = in.get(range[0]);
            if (v != null && (((Number) v).intValue() < Integer.parseInt(range[1])
                    || ((Number) v).intValue() > Integer.parseInt(range[2]))) {
                return new Answer(422, error(range[0] + " must be " + range[1] + " to " + range[2], range[0]));
            }
        }
        Map<String, String> newLabels = in.containsKey("labels") ? (Map<String, String>) in.get("labels") : j.labels();
        if (newLabels != null && newLabels.containsKey("forbidden")) {
            return new Answer(422, error("labels: the key 'forbidden' is refused by the scripted server", "labels"));
        }
        Answer refused = refuseControls(in, j.cronExpr() != null);
        if (refused != null) {
            return refused;
        }
        Job changed = new Job(j.id(), (String) in.getOrDefault("name", j.name()), j.executor(),
                (Map<String, Object>) in.getOrDefault("payload", j.payload()),
                (String) in.getOrDefault("cron_expr", j.cronExpr()),
                in.containsKey("run_at") ? (in.get("run_at") == null ? null : Instant.parse((String) in.get("run_at")))
                        : j.runAt(), (String) in.getOrDefault("timezone", j.timezone()),
                number(in, "priority", j.priority()), number(in, "max_attempts", j.maxAttempts()),
                number(in, "timeout_seconds", j.timeoutSeconds()), (String) in.getOrDefault("catch_up", j.catchUp()),
                j.idempotencyKey(), j.status(), j.nextRunAt(), j.createdAt(), now,
                (String) in.getOrDefault("queue", j.queue()),
                (String) in.getOrDefault("concurrency_key", j.concurrencyKey()),
                in.containsKey("max_concurrent") ? (Integer) in.get("max_concurrent") : j.maxConcurrent(),
                (String) in.getOrDefault("overlap", j.overlap()), j.waitingFor(), j.retry(), newLabels);
        changed = withControls(changed,
                in.containsKey("start_at") ? instant(in.get("start_at")) : j.startAt(),
                in.containsKey("end_at") ? instant(in.get("end_at")) : j.endAt(),
                in.containsKey("max_runs") ? (Integer) in.get("max_runs") : j.maxRuns(),
                in.containsKey("jitter_seconds") ? (in.get("jitter_seconds") == null ? 0
                        : (Integer) in.get("jitter_seconds")) : j.jitterSeconds(),
                in.containsKey("pause_after_failures") ? (Integer) in.get("pause_after_failures")
                        : j.pauseAfterFailures());
        jobs.set(jobs.indexOf(j), changed);
        return ok(changed);
    }

    private Answer submit(byte[] body) {
        lastSubmission = new String(body, StandardCharsets.UTF_8);
        Map<String, Object> in;
        try {
            in = JSON.readValue(body, new TypeReference<>() { });
        } catch (IOException e) {
            return new Answer(400, error("malformed JSON: " + e.getMessage(), null));
        }
        String name = (String) in.get("name");
        if (name == null || name.isBlank() || name.length() > 200) {
            return new Answer(422, error("name is required, 1 to 200 characters", "name"));
        }
        String executor = (String) in.get("executor");
        if (!"shell".equals(executor) && !"http".equals(executor)) {
            return new Answer(422, error("executor must be shell or http", "executor"));
        }
        String cron = (String) in.get("cron_expr");
        if (cron != null && (cron.contains("L") || cron.contains("#") || !(cron.startsWith("@")
                || cron.trim().split("\\s+").length == 5 || cron.trim().split("\\s+").length == 6))) {
            return new Answer(422, error("cron_expr '" + cron + "' is not valid (the scripted server's rule): use 5 "
                    + "fields such as \"*/5 * * * *\"", "cron_expr"));
        }
        for (String[] range : new String[][] {{"priority", "1", "9"}, {"max_attempts", "1", "100"},
                {"timeout_seconds", "1", "86400"}, {"max_runs", "1", "1000000"}, {"jitter_seconds", "0", "86400"},
                {"pause_after_failures", "1", "1000"}}) {
            Object v = in.get(range[0]);
            if (v != null && (((Number) v).intValue() < Integer.parseInt(range[1])
                    || ((Number) v).intValue() > Integer.parseInt(range[2]))) {
                return new Answer(422, error(range[0] + " must be " + range[1] + " to " + range[2], range[0]));
            }
        }
        @SuppressWarnings("unchecked")
        List<String> parents = (List<String>) in.getOrDefault("depends_on", List.of());
        for (String parent : parents) {
            if (job(parent) == null) {
                return new Answer(422, error("depends_on: no job with id " + parent, "depends_on"));
            }
        }
        if (!parents.isEmpty() && cron != null) {
            return new Answer(422, error("depends_on: a recurring job cannot have parents", "depends_on"));
        }
        Answer refused = refuseControls(in, cron != null);
        if (refused != null) {
            return refused;
        }
        String key = (String) in.get("idempotency_key");
        if (key != null) {
            for (Job existing : jobs) {
                if (key.equals(existing.idempotencyKey())) {
                    return existing.name().equals(name) ? ok(existing)
                            : new Answer(409, error("idempotency_key " + key + " was used for another job", null));
                }
            }
        }
        Instant runAt = in.get("run_at") == null ? null : Instant.parse((String) in.get("run_at"));
        @SuppressWarnings("unchecked")
        Map<String, Object> payload = (Map<String, Object>) in.getOrDefault("payload", Map.of());
        Job job = new Job("job_" + nextJob++, name, executor, payload, cron, runAt,
                (String) in.getOrDefault("timezone", "UTC"), number(in, "priority", 5), number(in, "max_attempts", 3),
                number(in, "timeout_seconds", 300), (String) in.getOrDefault("catch_up", "skip"), key, Job.ACTIVE,
                cron != null ? nextFire(cron, (String) in.getOrDefault("timezone", "UTC")) : runAt != null ? runAt : now,
                now, now);
        job = withControls(job, instant(in.get("start_at")), instant(in.get("end_at")), (Integer) in.get("max_runs"),
                in.get("jitter_seconds") == null ? 0 : (Integer) in.get("jitter_seconds"),
                (Integer) in.get("pause_after_failures"));
        jobs.add(job);
        if (!parents.isEmpty()) {
            link(job.id(), (String) in.get("on_parent_failure"), parents.toArray(String[]::new));
            addRun(job.id(), "waiting", null, null, List.of(), now);
        } else if (cron == null && runAt == null) {
            addRun(job.id(), Run.PENDING, null, null, List.of(), now);
        }
        return new Answer(201, write(withWorkflow(job, false)));
    }

    private static final List<String> CONTROLS = List.of("start_at", "end_at", "max_runs", "jitter_seconds",
            "pause_after_failures");

    /** Schedule controls: recurring jobs only; the scripted rule refuses an end_at in the past. */
    private Answer refuseControls(Map<String, Object> in, boolean recurring) {
        for (String control : CONTROLS) {
            if (in.get(control) != null && !recurring) {
                return new Answer(422, error(control + " applies to recurring jobs only", control));
            }
        }
        Instant end = instant(in.get("end_at"));
        if (end != null && end.isBefore(now)) {
            return new Answer(422, error("end_at " + end + " is in the past (the scripted server's rule)", "end_at"));
        }
        return null;
    }

    private static Instant instant(Object text) {
        return text == null ? null : Instant.parse((String) text);
    }

    private static Job withControls(Job j, Instant startAt, Instant endAt, Integer maxRuns, int jitterSeconds,
                                    Integer pauseAfterFailures) {
        return new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(), j.priority(),
                j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), j.status(), j.nextRunAt(),
                j.createdAt(), j.updatedAt(), j.queue(), j.concurrencyKey(), j.maxConcurrent(), j.overlap(),
                j.waitingFor(), j.retry(), j.labels(), j.traceId(), j.dependsOn(), j.onParentFailure(), j.batchId(),
                j.parents(), j.children(), startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures, j.firedRuns(),
                j.pausedNote(), j.pausedBy());
    }

    /** Backfilled ticks, {@code jobId@tick}: a tick gets at most one run. */
    private final java.util.Set<String> backfilled = new java.util.HashSet<>();
    /** The backfills made, by id, as GET /api/jobs/{id}/backfill/{bid} answers them. */
    private final Map<String, Map<String, Object>> backfills = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * POST /api/jobs/{id}/backfill, scripted: one tick per hour from..to (the real schedule is the server's business);
     * a missing or reversed range or more than 10,000 ticks is a 422 naming the field; a one-off job a 409.
     */
    private Answer backfill(Job job, byte[] body) {
        Map<String, Object> in;
        try {
            in = JSON.readValue(body, new TypeReference<>() { });
        } catch (IOException e) {
            return new Answer(400, error("malformed JSON: " + e.getMessage(), null));
        }
        if (job.cronExpr() == null) {
            return new Answer(409, error("job " + job.id() + " is not recurring", null));
        }
        if (in.get("from") == null) {
            return new Answer(422, error("from is required", "from"));
        }
        if (in.get("to") == null) {
            return new Answer(422, error("to is required", "to"));
        }
        Instant from = instant(in.get("from"));
        Instant to = instant(in.get("to"));
        if (to.isBefore(from)) {
            return new Answer(422, error("to must not be before from", "to"));
        }
        long ticks = java.time.Duration.between(from, to).toHours() + 1;
        if (ticks > 10_000) {
            return new Answer(422, error("to: more than 10000 ticks between from and to; the 10001st is "
                    + from.plusSeconds(3600L * 10_000), "to"));
        }
        int created = 0;
        for (Instant t = from; !t.isAfter(to); t = t.plusSeconds(3600)) {
            if (backfilled.add(job.id() + "@" + t)) {
                addRun(job.id(), Run.PENDING, null, null, List.of(), t);
                created++;
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", "bf_" + backfilled.size());
        out.put("job_id", job.id());
        out.put("from", from.toString());
        out.put("to", to.toString());
        out.put("overlap", in.getOrDefault("overlap", "allow"));
        out.put("ticks", ticks);
        out.put("created", created);
        out.put("skipped", ticks - created);
        out.put("created_at", now.toString());
        out.put("done", created == 0);
        out.put("runs", Map.of("pending", created));
        backfills.put((String) out.get("id"), out);
        return new Answer(201, write(out));
    }

    /** Scripted, not evaluated: a cron job's next tick is five minutes from now (the real server's is tested there). */
    private Instant nextFire(String cron, String zone) {
        return cron == null ? null : now.plusSeconds(300);
    }

    /**
     * Scripted preview: the expressions {@link #submit} refuses are a 422 on cron_expr; any other fires every five
     * minutes from now. What fires when is the real server's business, tested with its evaluator.
     */
    private Answer preview(Map<String, String> q) {
        String cron = q.get("cron_expr");
        if (cron == null || cron.contains("L") || cron.contains("#") || !(cron.startsWith("@")
                || cron.trim().split("\\s+").length == 5 || cron.trim().split("\\s+").length == 6)) {
            return new Answer(422, error("cron_expr '" + cron + "' is not valid (the scripted server's rule)", "cron_expr"));
        }
        int count = Integer.parseInt(q.getOrDefault("count", "10"));
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            Instant at = now.plusSeconds(300L * i);
            items.add(Map.of("at", at.toString(), "local", at.atOffset(java.time.ZoneOffset.UTC).toString()));
        }
        return ok(Map.of("items", items));
    }

    private static int number(Map<String, Object> in, String key, int fallback) {
        Object v = in.get(key);
        return v == null ? fallback : ((Number) v).intValue();
    }

    /** DELETE /api/jobs/{id}: 409 job_running while a run of it runs, unless cancel_running (which cancels it). */
    private Answer delete(Job job, boolean cancelRunning) {
        List<Run> running = runs.stream().filter(r -> r.jobId().equals(job.id()) && r.status().equals(Run.RUNNING)).toList();
        if (!running.isEmpty() && !cancelRunning) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("error", "job " + job.id() + " has a running run: add ?cancel_running=true to cancel it and delete");
            body.put("code", "job_running");
            return new Answer(409, write(body));
        }
        for (Run r : running) {
            runs.set(runs.indexOf(r), new Run(r.id(), r.jobId(), Run.CANCELLED, r.attempt(), r.maxAttempts(), r.priority(),
                    r.scheduledFor(), r.startedAt(), now, r.workerId(), null, r.output(), r.error(), r.attempts()));
        }
        Job gone = new Job(job.id(), job.name(), job.executor(), job.payload(), job.cronExpr(), job.runAt(),
                job.timezone(), job.priority(), job.maxAttempts(), job.timeoutSeconds(), job.catchUp(),
                job.idempotencyKey(), Job.DELETED, null, job.createdAt(), now);
        jobs.set(jobs.indexOf(job), gone);
        return ok(gone);
    }

    private Answer jobAction(Job job, String action) {
        String to;
        List<String> from;
        switch (action) {
            case "pause" -> {
                to = Job.PAUSED;
                from = List.of(Job.ACTIVE);
            }
            case "resume" -> {
                to = Job.ACTIVE;
                from = List.of(Job.PAUSED);
            }
            case "cancel" -> {
                to = Job.CANCELLED;
                from = List.of(Job.ACTIVE, Job.PAUSED);
            }
            case "trigger" -> {
                if (!List.of(Job.ACTIVE, Job.PAUSED).contains(job.status())) {
                    return new Answer(409, error("job " + job.id() + " is " + job.status(), null));
                }
                Run run = addRun(job.id(), Run.PENDING, null, null, List.of(), now);
                return new Answer(201, write(traced(run)));
            }
            default -> {
                return new Answer(404, error("HTTP 404 Not Found", null));
            }
        }
        if (!from.contains(job.status())) {
            return new Answer(409, error("job " + job.id() + " is " + job.status() + "; cannot " + action, null));
        }
        Job moved = new Job(job.id(), job.name(), job.executor(), job.payload(), job.cronExpr(), job.runAt(),
                job.timezone(), job.priority(), job.maxAttempts(), job.timeoutSeconds(), job.catchUp(),
                job.idempotencyKey(), to, to.equals(Job.ACTIVE) ? job.nextRunAt() : null, job.createdAt(), now);
        jobs.set(jobs.indexOf(job), moved);
        return ok(moved);
    }

    private Answer runAction(int i, String action) {
        Run r = runs.get(i);
        String to;
        switch (action) {
            case "requeue" -> {
                if (!r.status().equals(Run.DEAD) && !r.status().equals(Run.CANCELLED)) {
                    return new Answer(409, error("run " + r.id() + " is " + r.status()
                            + "; only dead or cancelled runs can be requeued", null));
                }
                to = Run.PENDING;
            }
            case "cancel" -> {
                if (!r.status().equals(Run.PENDING) && !r.status().equals(Run.RUNNING)) {
                    return new Answer(409, error("run " + r.id() + " is " + r.status() + "; only pending or running "
                            + "runs can be cancelled", null));
                }
                to = Run.CANCELLED;
            }
            default -> {
                return new Answer(404, error("HTTP 404 Not Found", null));
            }
        }
        Run moved = new Run(r.id(), r.jobId(), to, r.attempt(), r.maxAttempts(), r.priority(),
                to.equals(Run.PENDING) ? now : r.scheduledFor(), r.startedAt(),
                to.equals(Run.CANCELLED) ? now : r.finishedAt(), null, null, r.output(), r.error(), r.attempts());
        runs.set(i, moved);
        return ok(traced(moved));
    }

    /** Runs by status, waiting included (as the node counts it). */
    private Map<String, Long> stats() {
        Map<String, Long> n = new LinkedHashMap<>();
        for (String status : List.of("waiting", Run.PENDING, Run.RUNNING, Run.SUCCEEDED, Run.DEAD, Run.CANCELLED)) {
            n.put(status, runs.stream().filter(r -> r.status().equals(status)).count());
        }
        return n;
    }

    private <T> Answer page(List<T> items, Map<String, String> q) {
        int limit;
        try {
            limit = q.containsKey("limit") ? Integer.parseInt(q.get("limit")) : 50;
        } catch (NumberFormatException e) {
            return new Answer(400, error("limit must be a number", "limit"));
        }
        if (limit < 1 || limit > 500) {
            return new Answer(400, error("limit must be 1 to 500", "limit"));
        }
        int from = q.containsKey("cursor") ? Integer.parseInt(q.get("cursor").substring(2)) : 0;
        int to = Math.min(items.size(), from + limit);
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("items", items.subList(Math.min(from, to), to));
        page.put("next_cursor", to < items.size() ? "o:" + to : null);
        return ok(page);
    }

    /** PUT /api/queues/{name} in the request's tenant: the limits given are set (null: none), the rest kept. */
    private Answer configureQueue(io.forgeflow.client.Queue q, byte[] body) {
        Map<String, Object> in;
        try {
            in = JSON.readValue(body, new TypeReference<>() { });
        } catch (IOException e) {
            return new Answer(400, error("the body is not JSON", null));
        }
        Integer max = q.maxRunning();
        io.forgeflow.client.Queue.RateLimit rate = q.rateLimit();
        if (in.containsKey("max_running")) {
            Object m = in.get("max_running");
            if (m != null && (!(m instanceof Integer i) || i < 1 || i > 100_000)) {
                return new Answer(422, error("max_running must be between 1 and 100000, or null for no limit, was "
                        + m, "max_running"));
            }
            max = (Integer) m;
        }
        if (in.containsKey("rate_limit")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> r = (Map<String, Object>) in.get("rate_limit");
            if (r == null) {
                rate = null;
            } else {
                Object c = r.get("count");
                Object per = r.get("per_seconds");
                if (!(c instanceof Integer i) || i < 1 || i > 1_000_000) {
                    return new Answer(422, error("rate_limit.count must be between 1 and 1000000, was " + c,
                            "rate_limit.count"));
                }
                if (!(per instanceof Integer s) || s < 1 || s > 86_400) {
                    return new Answer(422, error("rate_limit.per_seconds must be between 1 and 86400, was " + per,
                            "rate_limit.per_seconds"));
                }
                rate = new io.forgeflow.client.Queue.RateLimit((Integer) c, (Integer) per);
            }
        }
        io.forgeflow.client.Queue after = new io.forgeflow.client.Queue(q.name(), q.paused(), max, rate, q.pending(),
                q.due(), q.running(), q.lagSeconds(), rate == null ? 0 : q.startsInWindow(), q.tenant());
        queues.put(q.tenant() + "\u0000" + q.name(), after);
        return ok(after);
    }

    private static io.forgeflow.client.Queue inTenant(io.forgeflow.client.Queue q, String tenant) {
        return new io.forgeflow.client.Queue(q.name(), q.paused(), q.maxRunning(), q.rateLimit(), q.pending(), q.due(),
                q.running(), q.lagSeconds(), q.startsInWindow(), tenant);
    }

    /** PUT /api/tenants/{name}: the fields given are set (null weight: 1, null limit: none), the rest kept. */
    private Answer configureTenant(String name, byte[] body) {
        Map<String, Object> in;
        try {
            in = JSON.readValue(body, new TypeReference<>() { });
        } catch (IOException e) {
            return new Answer(400, error("the body is not JSON", null));
        }
        io.forgeflow.client.Tenant t = tenants.getOrDefault(name, new io.forgeflow.client.Tenant(name, 1, null, null,
                0, 0, 0));
        int weight = t.weight();
        Integer max = t.maxRunning();
        io.forgeflow.client.Tenant.RateLimit rate = t.rateLimit();
        if (in.containsKey("weight")) {
            Object w = in.get("weight");
            if (w != null && (!(w instanceof Integer i) || i < 1 || i > 1000)) {
                return new Answer(422, error("weight must be between 1 and 1000, or null for 1, was " + w, "weight"));
            }
            weight = w == null ? 1 : (Integer) w;
        }
        if (in.containsKey("max_running")) {
            Object m = in.get("max_running");
            if (m != null && (!(m instanceof Integer i) || i < 1 || i > 100_000)) {
                return new Answer(422, error("max_running must be between 1 and 100000, or null for no limit, was "
                        + m, "max_running"));
            }
            max = (Integer) m;
        }
        if (in.containsKey("rate_limit")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> r = (Map<String, Object>) in.get("rate_limit");
            if (r == null) {
                rate = null;
            } else {
                Object c = r.get("count");
                if (!(c instanceof Integer i) || i < 1 || i > 1_000_000) {
                    return new Answer(422, error("rate_limit.count must be between 1 and 1000000, was " + c,
                            "rate_limit.count"));
                }
                rate = new io.forgeflow.client.Tenant.RateLimit((Integer) c, (Integer) r.get("per_seconds"));
            }
        }
        io.forgeflow.client.Tenant after = new io.forgeflow.client.Tenant(name, weight, max, rate, t.pending(),
                t.running(), rate == null ? 0 : t.startsInWindow());
        tenants.put(name, after);
        return ok(after);
    }

    private int indexOfRun(String id) {
        for (int i = 0; i < runs.size(); i++) {
            if (runs.get(i).id().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    private static Run withoutAttempts(Run r) {
        return new Run(r.id(), r.jobId(), r.status(), r.attempt(), r.maxAttempts(), r.priority(), r.scheduledFor(),
                r.startedAt(), r.finishedAt(), r.workerId(), r.leaseExpiresAt(), r.output(), r.error(), null);
    }

    private static Answer ok(Object value) {
        return new Answer(200, write(value));
    }

    private static String forbidden(String error, String field) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        if (field != null) {
            body.put("field", field);
        }
        body.put("code", "tenant_forbidden");
        return write(body);
    }

    private static String error(String error, String field) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        if (field != null) {
            body.put("field", field);
        }
        return write(body);
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every {@code label=key:value} of the query. */
    private static Map<String, String> labelsOf(String query) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("label=")) {
                    String kv = URLDecoder.decode(pair.substring(6), StandardCharsets.UTF_8);
                    int colon = kv.indexOf(':');
                    labels.put(kv.substring(0, colon), kv.substring(colon + 1));
                }
            }
        }
        return labels;
    }

    private static Map<String, String> parse(String query) {
        Map<String, String> q = new LinkedHashMap<>();
        if (query != null) {
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    q.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return q;
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    // ---------------------------------------------------------------- a cluster in a believable state

    /** Six jobs, a failing one with a dead run and three attempts, runs in every status, three nodes. */
    public ScriptedServer seedDemo() {
        synchronized (this) {
            Instant t = now;
            Job nightly = addJob("nightly-report", "shell", Map.of("command", "/opt/reports/nightly.sh"),
                    "0 3 * * *", "Europe/Berlin", Job.ACTIVE);
            Job sync = addJob("sync-crm", "http", Map.of("url", "https://crm.internal/api/sync", "method", "POST"),
                    "*/15 * * * *", "UTC", Job.ACTIVE);
            Job backup = addJob("backup-db", "shell", Map.of("command", "pg_dump -h db-primary app > /backups/app.sql"),
                    "30 1 * * *", "America/New_York", Job.ACTIVE);
            Job cleanup = addJob("cleanup-tmp", "shell", Map.of("command", "find /tmp -mtime +7 -delete"), "@hourly",
                    "UTC", Job.PAUSED);
            Job invoices = addJob("send-invoices", "http", Map.of("url", "https://billing.internal/run"),
                    "0 8 1 * *", "Europe/London", Job.ACTIVE);
            addJob("legacy-export", "shell", Map.of("command", "/opt/legacy/export.sh"), "0 0 * * 0", "UTC",
                    Job.CANCELLED);
            for (int i = 12; i >= 1; i--) {
                addRun(sync.id(), Run.SUCCEEDED, "HTTP 200 {\"synced\": " + (40 + i) + "}", null,
                        List.of(new Attempt(1, i % 2 == 0 ? "node-a" : "node-b", t.minusSeconds(900L * i),
                                t.minusSeconds(900L * i - 2), "succeeded", null)), t.minusSeconds(900L * i));
            }
            addRun(nightly.id(), Run.SUCCEEDED, "report written: 1,204 rows\n", null,
                    List.of(new Attempt(1, "node-b", t.minusSeconds(23_000), t.minusSeconds(22_950), "succeeded",
                            null)), t.minusSeconds(23_000));
            addRun(cleanup.id(), Run.CANCELLED, null, null, List.of(), t.minusSeconds(7200));
            Duration gap = Duration.ofSeconds(40);
            Instant first = t.minusSeconds(3600);
            addRun(backup.id(), Run.DEAD, "pg_dump: dumping contents of table \"public.orders\"\n",
                    "pg_dump: error: connection to server at \"db-primary\" (10.0.0.12), port 5432 failed: timeout "
                            + "expired\nexit code 1",
                    List.of(new Attempt(1, "node-a", first, first.plusSeconds(31), "failed",
                                    "pg_dump: error: connection to server at \"db-primary\" failed: timeout expired"),
                            new Attempt(2, "node-b", first.plus(gap), first.plus(gap).plusSeconds(31), "failed",
                                    "pg_dump: error: connection to server at \"db-primary\" failed: timeout expired"),
                            new Attempt(3, "node-a", first.plus(gap.multipliedBy(3)),
                                    first.plus(gap.multipliedBy(3)).plusSeconds(300), "timed_out",
                                    "timed out after 300 s; the process tree was killed")), first);
            addRun(invoices.id(), Run.DEAD, null, "HTTP 503 from https://billing.internal/run: "
                            + "{\"error\": \"maintenance\"}",
                    List.of(new Attempt(1, "node-b", t.minusSeconds(1800), t.minusSeconds(1799), "failed", "HTTP 503"),
                            new Attempt(2, "node-a", t.minusSeconds(1700), t.minusSeconds(1699), "failed", "HTTP 503"),
                            new Attempt(3, "node-b", t.minusSeconds(1500), t.minusSeconds(1499), "failed",
                                    "HTTP 503")), t.minusSeconds(1800));
            addRun(sync.id(), Run.RUNNING, null, null,
                    List.of(new Attempt(1, "node-a", t.minusSeconds(5), null, null, null)), t.minusSeconds(5));
            addRun(nightly.id(), Run.PENDING, null, null, List.of(), t.plusSeconds(60));
            addNode(new Node("node-a", List.of("api", "scheduler", "worker"), "0.1.0", t.minusSeconds(86_000),
                    t.minusSeconds(1), 1, true));
            addNode(new Node("node-b", List.of("api", "scheduler", "worker"), "0.1.0", t.minusSeconds(86_000),
                    t.minusSeconds(2), 0, false));
            addNode(new Node("node-c", List.of("worker"), "0.1.0", t.minusSeconds(4000), t.minusSeconds(3), 0, false));
        }
        return this;
    }

    @Override
    public String toString() {
        return "ScriptedServer[" + url() + "]";
    }
}
