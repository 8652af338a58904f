package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A job as the server returns it: the definition plus its read-only {@code id}, {@code status} ({@code active},
 * {@code paused}, {@code cancelled}, {@code completed}), {@code next_run_at} (null when none), and timestamps.
 * Schedule fields: {@code cron_expr} evaluated in {@code timezone}, or a one-off {@code run_at}; neither means "run now".
 * Queue fields: its {@code queue} ({@code default} unless named), the {@code concurrency_key} and {@code max_concurrent}
 * that limit how many of its runs (and those sharing the key) run at once cluster-wide, and its {@code overlap} policy
 * ({@code allow}, {@code skip}, {@code queue_one}, {@code cancel_running}). From a server that predates them, the
 * queue fields read as {@code default}, null, null and {@code allow}. {@code waitingFor} says what an active job
 * waits for before any worker can run it ({@code "handler send-receipt"}: no live embedded worker has the handler of
 * its {@code java} payload); null when nothing, and from a server that predates it.
 * {@code retry}: the job's own retry backoff, null when it gave none (the server's defaults apply).
 * {@code labels}: string to string, empty when none (also from a server that predates them), in key order.
 * {@code traceId}: the W3C trace of its submission (the {@code traceparent} it was submitted with, or the one the
 * server started), null when none or from a server that predates it.
 * Workflows: {@code dependsOn} the parent ids (empty when none), {@code onParentFailure} ({@code cancel}, {@code run},
 * {@code wait}; null without parents), {@code batchId} (null when not created by a batch); {@code parents} and
 * {@code children} are sent by {@link ForgeFlowClient#getJob(String)} only and are null in lists (and from a server
 * that predates workflows).
 * Schedule controls (recurring jobs): {@code startAt}, {@code endAt}, {@code maxRuns} (null when none),
 * {@code jitterSeconds} (0 when none), {@code pauseAfterFailures}, {@code firedRuns} (runs fired so far); while paused,
 * {@code pausedNote} and {@code pausedBy} (the token that paused it). From a server that predates them: null and 0.
 * {@code sequenceKey} and {@code onDead}: the sequence its runs join ({@code block} or {@code continue}); null for none
 * (and from a server that predates them). {@code notices}: where the job's notices go ({@code notify} in the API) (README "Notices"); null for
 * none.
 * {@code debounce} and {@code throttle}: its flow control (README "Flow control"; the debounce as stored, defaults
 * applied); null for none (and from a server that predates them). {@code deadStreak}: a recurring job with
 * {@code pauseAfterFailures}: its runs in a row that ended dead so far (0 otherwise, and from a server that predates
 * it).
 * {@code tenant}: the tenant the job belongs to ({@code default} for jobs made before tenants), as the server sent it;
 * null when the answer has no {@code tenant} field (a server that predates tenants). The client does not fill in
 * {@code default} itself.
 */
public record Job(
        String id,
        String name,
        String executor,
        Map<String, Object> payload,
        String cronExpr,
        Instant runAt,
        String timezone,
        int priority,
        int maxAttempts,
        int timeoutSeconds,
        String catchUp,
        String idempotencyKey,
        String status,
        Instant nextRunAt,
        Instant createdAt,
        Instant updatedAt,
        String queue,
        String concurrencyKey,
        Integer maxConcurrent,
        String overlap,
        String waitingFor,
        Retry retry,
        Map<String, String> labels,
        String traceId,
        List<String> dependsOn,
        String onParentFailure,
        String batchId,
        List<LinkedJob> parents,
        List<LinkedJob> children,
        Instant startAt,
        Instant endAt,
        Integer maxRuns,
        int jitterSeconds,
        Integer pauseAfterFailures,
        int firedRuns,
        String pausedNote,
        String pausedBy,
        String sequenceKey,
        String onDead,
        @com.fasterxml.jackson.annotation.JsonProperty("notify") Notify notices,
        Debounce debounce,
        Throttle throttle,
        int deadStreak,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        String tenant) {

    public static final String ACTIVE = "active";
    public static final String PAUSED = "paused";
    public static final String CANCELLED = "cancelled";
    public static final String COMPLETED = "completed";
    /** A deleted job (a tombstone): out of the lists; its finished runs still name it until retention. */
    public static final String DELETED = "deleted";
    /** The queue of a job that names none. */
    public static final String DEFAULT_QUEUE = "default";
    /** The overlap policy of a job that gives none: every tick fires. */
    public static final String ALLOW = "allow";
    /** {@code on_parent_failure}: a parent ending dead or cancelled cancels this job's waiting run (the default). */
    public static final String ON_PARENT_FAILURE_CANCEL = "cancel";
    /** {@code on_parent_failure}: the job runs once every parent has ended, whatever the outcome. */
    public static final String ON_PARENT_FAILURE_RUN = "run";
    /** {@code on_parent_failure}: the job waits until every parent has succeeded (a dead parent can be requeued). */
    public static final String ON_PARENT_FAILURE_WAIT = "wait";

    @JsonCreator
    public Job {
        queue = queue == null ? DEFAULT_QUEUE : queue;
        overlap = overlap == null ? ALLOW : overlap;
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
        dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
        parents = parents == null ? null : List.copyOf(parents);
        children = children == null ? null : List.copyOf(children);
    }

    /** A job without a tenant (the fields before {@code tenant}; {@link #tenant()} null). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId, List<String> dependsOn, String onParentFailure,
               String batchId, List<LinkedJob> parents, List<LinkedJob> children, Instant startAt, Instant endAt,
               Integer maxRuns, int jitterSeconds, Integer pauseAfterFailures, int firedRuns, String pausedNote,
               String pausedBy, String sequenceKey, String onDead, Notify notices, Debounce debounce,
               Throttle throttle, int deadStreak) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, dependsOn, onParentFailure, batchId, parents, children, startAt,
                endAt, maxRuns, jitterSeconds, pauseAfterFailures, firedRuns, pausedNote, pausedBy, sequenceKey, onDead,
                notices, debounce, throttle, deadStreak, null);
    }

    /** A job without flow control and dead streak (the fields before {@code debounce}). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId, List<String> dependsOn, String onParentFailure,
               String batchId, List<LinkedJob> parents, List<LinkedJob> children, Instant startAt, Instant endAt,
               Integer maxRuns, int jitterSeconds, Integer pauseAfterFailures, int firedRuns, String pausedNote,
               String pausedBy, String sequenceKey, String onDead, Notify notices) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, dependsOn, onParentFailure, batchId, parents, children, startAt,
                endAt, maxRuns, jitterSeconds, pauseAfterFailures, firedRuns, pausedNote, pausedBy, sequenceKey, onDead,
                notices, null, null, 0);
    }

    /** A job without flow control (the fields before {@code debounce}, then the dead streak). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId, List<String> dependsOn, String onParentFailure,
               String batchId, List<LinkedJob> parents, List<LinkedJob> children, Instant startAt, Instant endAt,
               Integer maxRuns, int jitterSeconds, Integer pauseAfterFailures, int firedRuns, String pausedNote,
               String pausedBy, String sequenceKey, String onDead, Notify notices, int deadStreak) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, dependsOn, onParentFailure, batchId, parents, children, startAt,
                endAt, maxRuns, jitterSeconds, pauseAfterFailures, firedRuns, pausedNote, pausedBy, sequenceKey, onDead,
                notices, null, null, deadStreak);
    }

    /** A job without a dead streak (the fields before it). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId, List<String> dependsOn, String onParentFailure,
               String batchId, List<LinkedJob> parents, List<LinkedJob> children, Instant startAt, Instant endAt,
               Integer maxRuns, int jitterSeconds, Integer pauseAfterFailures, int firedRuns, String pausedNote,
               String pausedBy, String sequenceKey, String onDead, Notify notices, Debounce debounce,
               Throttle throttle) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, dependsOn, onParentFailure, batchId, parents, children, startAt,
                endAt, maxRuns, jitterSeconds, pauseAfterFailures, firedRuns, pausedNote, pausedBy, sequenceKey, onDead,
                notices, debounce, throttle, 0);
    }

    /** A job outside any sequence. */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId, List<String> dependsOn, String onParentFailure,
               String batchId, List<LinkedJob> parents, List<LinkedJob> children, Instant startAt, Instant endAt, Integer maxRuns, int jitterSeconds,
               Integer pauseAfterFailures, int firedRuns, String pausedNote, String pausedBy) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, dependsOn, onParentFailure, batchId, parents, children, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures, firedRuns, pausedNote,
                pausedBy, null, null, null);
    }

    /** A job in a sequence, without schedule controls. */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId, List<String> dependsOn, String onParentFailure,
               String batchId, List<LinkedJob> parents, List<LinkedJob> children, String sequenceKey, String onDead) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, dependsOn, onParentFailure, batchId, parents, children, null, null, null, 0, null, 0, null, null, sequenceKey, onDead, null);
    }

    /** A job without schedule controls, pause note or sequence (the fields before them). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId, List<String> dependsOn, String onParentFailure,
               String batchId, List<LinkedJob> parents, List<LinkedJob> children) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, dependsOn, onParentFailure, batchId, parents, children, null, null,
                null, 0, null, 0, null, null, null, null, null);
    }

    /** A job without workflow fields (the fields before workflows): no parents, not of a batch. */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels, String traceId) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, traceId, List.of(), null, null, null, null);
    }

    /** The parents ({@code GET /api/jobs/{id}} only; at most 100), empty when the server did not send them. */
    public List<LinkedJob> parentsOrEmpty() {
        return parents == null ? List.of() : parents;
    }

    /** The children ({@code GET /api/jobs/{id}} only; the first 1,000), empty when the server did not send them. */
    public List<LinkedJob> childrenOrEmpty() {
        return children == null ? List.of() : children;
    }

    /** A job without trace (the fields before {@code trace_id}). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry,
               Map<String, String> labels) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, labels, null);
    }

    /** A job waiting for nothing (the fields before {@code waiting_for}). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                (String) null, (Retry) null, Map.of());
    }

    /** A job without a retry policy of its own (the fields before per-job retry). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, (Retry) null, Map.of());
    }

    /** A job waiting for nothing, with its retry policy (the fields before {@code waiting_for}, and retry). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, Retry retry) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                (String) null, retry, Map.of());
    }

    /** A job with what it waits for and its retry policy, without labels (the fields before labels). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, String waitingFor, Retry retry) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                waitingFor, retry, Map.of());
    }

    /** A job with labels, waiting for nothing, without a retry policy of its own. */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt, String queue,
               String concurrencyKey, Integer maxConcurrent, String overlap, Map<String, String> labels) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, queue, concurrencyKey, maxConcurrent, overlap,
                (String) null, (Retry) null, labels);
    }

    /** A job in the default queue, without a concurrency limit, whose ticks may overlap (the fields before queues). */
    public Job(String id, String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
               String timezone, int priority, int maxAttempts, int timeoutSeconds, String catchUp, String idempotencyKey,
               String status, Instant nextRunAt, Instant createdAt, Instant updatedAt) {
        this(id, name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, status, nextRunAt, createdAt, updatedAt, DEFAULT_QUEUE, null, null, ALLOW, (String) null,
                (Retry) null, Map.of());
    }
}
