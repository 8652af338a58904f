package io.forgeflow.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /api/jobs}. Fields left null are not sent, so the server's defaults apply (timezone UTC,
 * priority 5, max_attempts 3, timeout_seconds 300, catch_up skip, queue {@code default}, no concurrency limit,
 * overlap allow, no parents, no debounce or throttle, no {@code tenant}: the server files it under the tenant the
 * request acts in). Build one with {@link #shell(String, String)}, {@link #http(String, String)} or
 * {@link #builder(String, String)}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobRequest(
        String name,
        String executor,
        Map<String, Object> payload,
        String cronExpr,
        Instant runAt,
        String timezone,
        Integer priority,
        Integer maxAttempts,
        Integer timeoutSeconds,
        String catchUp,
        String idempotencyKey,
        String queue,
        String concurrencyKey,
        Integer maxConcurrent,
        String overlap,
        String uniqueKey,
        String uniqueOnConflict,
        Retry retry,
        Map<String, String> labels,
        List<String> dependsOn,
        String onParentFailure,
        Instant startAt,
        Instant endAt,
        Integer maxRuns,
        Integer jitterSeconds,
        Integer pauseAfterFailures,
        String sequenceKey,
        String onDead,
        @com.fasterxml.jackson.annotation.JsonProperty("notify") Notify notices,
        Debounce debounce,
        Throttle throttle,
        String tenant) {

    /** A request without a tenant (the fields before {@code tenant}). */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict, Retry retry,
                      Map<String, String> labels, List<String> dependsOn, String onParentFailure, Instant startAt,
                      Instant endAt, Integer maxRuns, Integer jitterSeconds, Integer pauseAfterFailures,
                      String sequenceKey, String onDead, Notify notices, Debounce debounce, Throttle throttle) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, retry, labels,
                dependsOn, onParentFailure, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures, sequenceKey,
                onDead, notices, debounce, throttle, null);
    }

    /** A request without flow control (the fields before {@code debounce} and {@code throttle}). */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict, Retry retry,
                      Map<String, String> labels, List<String> dependsOn, String onParentFailure, Instant startAt,
                      Instant endAt, Integer maxRuns, Integer jitterSeconds, Integer pauseAfterFailures,
                      String sequenceKey, String onDead, Notify notices) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, retry, labels,
                dependsOn, onParentFailure, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures, sequenceKey,
                onDead, notices, null, null);
    }

    /** A request outside any sequence. */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict, Retry retry,
                      Map<String, String> labels, List<String> dependsOn, String onParentFailure, Instant startAt, Instant endAt, Integer maxRuns,
                      Integer jitterSeconds, Integer pauseAfterFailures) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, retry, labels,
                dependsOn, onParentFailure, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures, null, null, null);
    }

    /** A request in a sequence, without schedule controls. */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict, Retry retry,
                      Map<String, String> labels, List<String> dependsOn, String onParentFailure, String sequenceKey, String onDead) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, retry, labels,
                dependsOn, onParentFailure, null, null, null, null, null, sequenceKey, onDead, null);
    }

    @JsonCreator
    public JobRequest {
        labels = labels == null || labels.isEmpty() ? null
                : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
        dependsOn = dependsOn == null || dependsOn.isEmpty() ? null : List.copyOf(dependsOn);
    }

    /** A request without schedule controls or sequence (the fields before them). */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict, Retry retry,
                      Map<String, String> labels, List<String> dependsOn, String onParentFailure) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, retry, labels,
                dependsOn, onParentFailure, null, null, null, null, null, null, null, null);
    }

    /** A request without parents (the fields before workflows). */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict, Retry retry,
                      Map<String, String> labels) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, retry, labels,
                null, null);
    }

    /** A request without a retry policy of its own (the server's defaults apply) or labels. */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, (Retry) null,
                (Map<String, String>) null);
    }

    /** A request with a retry policy of its own, without labels. */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict,
                      Retry retry) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, retry, null);
    }

    /** A request with labels, without a retry policy of its own. */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap, String uniqueKey, String uniqueOnConflict,
                      Map<String, String> labels) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict, null, labels);
    }

    /** A request without a unique key. */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey, String queue, String concurrencyKey, Integer maxConcurrent,
                      String overlap) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, null, null);
    }

    /** A request without queue, concurrency limit or overlap policy (the fields before queues). */
    public JobRequest(String name, String executor, Map<String, Object> payload, String cronExpr, Instant runAt,
                      String timezone, Integer priority, Integer maxAttempts, Integer timeoutSeconds, String catchUp,
                      String idempotencyKey) {
        this(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds, catchUp,
                idempotencyKey, null, null, null, null);
    }

    /** The same request with other notices ({@code notify}, null for none); every other field kept. */
    public JobRequest withNotify(Notify newNotify) {
        return new JobRequest(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retry, labels, dependsOn, onParentFailure, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures,
                sequenceKey, onDead, newNotify, debounce, throttle, tenant);
    }

    /** The same request with other flow control ({@code debounce}, {@code throttle}; null for none); the rest kept. */
    public JobRequest withFlow(Debounce newDebounce, Throttle newThrottle) {
        return new JobRequest(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retry, labels, dependsOn, onParentFailure, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures,
                sequenceKey, onDead, notices, newDebounce, newThrottle, tenant);
    }

    /** The same request with other parents ({@code depends_on}, {@code on_parent_failure}); every other field kept. */
    public JobRequest withDependsOn(List<String> parents, String onFailure) {
        return new JobRequest(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retry, labels, parents, onFailure, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures,
                sequenceKey, onDead, notices, debounce, throttle, tenant);
    }

    /**
     * The same request in another tenant (the {@code tenant} body field; null: not sent, so the server files it
     * under the tenant the request acts in); every other field kept.
     */
    public JobRequest withTenant(String newTenant) {
        return new JobRequest(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts, timeoutSeconds,
                catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey, uniqueOnConflict,
                retry, labels, dependsOn, onParentFailure, startAt, endAt, maxRuns, jitterSeconds, pauseAfterFailures,
                sequenceKey, onDead, notices, debounce, throttle, newTenant);
    }

    /** A job for the {@code shell} executor: {@code /bin/sh -c command}. */
    public static Builder shell(String name, String command) {
        return builder(name, "shell").payload(Map.of("command", command));
    }

    /** A job for the {@code http} executor: a POST to url (change method, headers or body through the payload). */
    public static Builder http(String name, String url) {
        return builder(name, "http").payload(Map.of("url", url));
    }

    public static Builder builder(String name, String executor) {
        return new Builder(name, executor);
    }

    /** Fluent construction; every setter is optional. */
    public static final class Builder {
        private final String name;
        private final String executor;
        private Map<String, Object> payload;
        private String cronExpr;
        private Instant runAt;
        private String timezone;
        private Integer priority;
        private Integer maxAttempts;
        private Integer timeoutSeconds;
        private String uniqueKey;
        private String sequenceKey;
        private String onDead;
        private String uniqueOnConflict;
        private String catchUp;
        private String idempotencyKey;
        private String queue;
        private String concurrencyKey;
        private Integer maxConcurrent;
        private String overlap;
        private Retry retry;
        private final Map<String, String> labels = new LinkedHashMap<>();
        private final List<String> dependsOn = new ArrayList<>();
        private String onParentFailure;

        private Builder(String name, String executor) {
            this.name = name;
            this.executor = executor;
        }

        public Builder payload(Map<String, ?> payload) {
            this.payload = payload == null ? null : new LinkedHashMap<>(payload);
            return this;
        }

        public Builder cron(String cronExpr) {
            this.cronExpr = cronExpr;
            return this;
        }

        public Builder cron(String cronExpr, String timezone) {
            this.cronExpr = cronExpr;
            this.timezone = timezone;
            return this;
        }

        public Builder runAt(Instant runAt) {
            this.runAt = runAt;
            return this;
        }

        public Builder timezone(String timezone) {
            this.timezone = timezone;
            return this;
        }

        public Builder priority(Integer priority) {
            this.priority = priority;
            return this;
        }

        public Builder maxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder timeoutSeconds(Integer timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
            return this;
        }

        public Builder catchUp(String catchUp) {
            this.catchUp = catchUp;
            return this;
        }

        public Builder idempotencyKey(String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        /** The queue the job's runs go to: letters, digits, '.', '_' and '-' (default {@code default}). */
        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        /**
         * At most {@code maxConcurrent} runs of all jobs sharing {@code key} run at once, across the cluster; a null
         * key limits this job's own runs.
         */
        public Builder concurrency(String key, Integer maxConcurrent) {
            this.concurrencyKey = key;
            this.maxConcurrent = maxConcurrent;
            return this;
        }

        /** The key whose runs count together against {@link #maxConcurrent(Integer)}. */
        public Builder concurrencyKey(String concurrencyKey) {
            this.concurrencyKey = concurrencyKey;
            return this;
        }

        /** At most this many runs (of this job, or of all jobs sharing its concurrency key) at once: 1-10000. */
        public Builder maxConcurrent(Integer maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
            return this;
        }

        /**
         * What a tick of a recurring job does while an earlier run of it is pending or running: {@code allow},
         * {@code skip}, {@code queue_one} or {@code cancel_running}.
         */
        public Builder overlap(String overlap) {
            this.overlap = overlap;
            return this;
        }

        /**
         * While a run of a job with this key (in the same queue) is pending or running, the submission is refused
         * (409, {@code unique_conflict}), or answers that job when {@code onConflict} is {@code return_existing}
         * (null: {@code reject}). One-off jobs only.
         */
        public Builder uniqueKey(String key, String onConflict) {
            this.uniqueKey = key;
            this.uniqueOnConflict = onConflict;
            return this;
        }

        /**
         * The job's own retry backoff: the first retry waits up to {@code baseSeconds}, later ones double up to
         * {@code maxSeconds} (each 1-86400, base at most max; null: the server's default for that part).
         */
        public Builder retry(Integer baseSeconds, Integer maxSeconds) {
            this.retry = baseSeconds == null && maxSeconds == null ? null : new Retry(baseSeconds, maxSeconds);
            return this;
        }

        /** A label (key {@code [a-z0-9_.-]}, 1-63 characters; value up to 200): at most 20 per job, copied to its runs. */
        public Builder label(String key, String value) {
            this.labels.put(key, value);
            return this;
        }

        /** Adds every label of {@code labels}. */
        public Builder labels(Map<String, String> labels) {
            this.labels.putAll(labels);
            return this;
        }

        /**
         * Parents: the job runs only after they succeed (its run waits in status {@code waiting}). Job ids, or in a
         * batch also the {@code ref} of another job of the batch; 1-100 distinct, one-off jobs only. Repeatable.
         */
        public Builder dependsOn(String... parents) {
            this.dependsOn.addAll(List.of(parents));
            return this;
        }

        /** Adds every parent of {@code parents}. */
        public Builder dependsOn(java.util.Collection<String> parents) {
            this.dependsOn.addAll(parents);
            return this;
        }

        /**
         * What a parent ending {@code dead} or {@code cancelled} does to this job: {@code cancel} (the server's
         * default), {@code run} (run once every parent has ended) or {@code wait} (until every parent succeeded).
         */
        public Builder onParentFailure(String policy) {
            this.onParentFailure = policy;
            return this;
        }

        private Instant startAt;
        private Instant endAt;
        private Integer maxRuns;
        private Integer jitterSeconds;
        private Integer pauseAfterFailures;

        /** A recurring job fires no tick before this one (a tick exactly at it fires). */
        public Builder startAt(Instant startAt) {
            this.startAt = startAt;
            return this;
        }

        /** A recurring job fires no tick after this one, and completes with its last tick. */
        public Builder endAt(Instant endAt) {
            this.endAt = endAt;
            return this;
        }

        /** A recurring job completes after the scheduler has fired this many runs (1-1,000,000). */
        public Builder maxRuns(Integer maxRuns) {
            this.maxRuns = maxRuns;
            return this;
        }

        /**
         * Each tick's run is due 0 to {@code jitterSeconds} whole seconds after the tick (0-86,400), the same on every
         * scheduler node (a hash of the job and the tick).
         */
        public Builder jitterSeconds(Integer jitterSeconds) {
            this.jitterSeconds = jitterSeconds;
            return this;
        }

        /** Pause the recurring job after this many dead runs in a row (1-1,000). */
        public Builder pauseAfterFailures(Integer pauseAfterFailures) {
            this.pauseAfterFailures = pauseAfterFailures;
            return this;
        }

        /**
         * Joins the sequence {@code key}: runs with one key start one at a time, in submission order (one-off jobs);
         * {@code onDead}: {@code block} (the server's default when null: a dead run holds the sequence until it is
         * requeued) or {@code continue}.
         */
        public Builder sequence(String key, String onDead) {
            this.sequenceKey = key;
            this.onDead = onDead;
            return this;
        }

        private Notify notices;

        /**
         * Sends the job's notices to {@code url}: each of {@code on} ({@link Notify#DEAD}, {@link Notify#PAUSED},
         * {@link Notify#RECOVERED}; none given: all three) is POSTed once (README "Notices").
         */
        public Builder notices(String url, String... on) {
            this.notices = Notify.of(url, on);
            return this;
        }

        private Debounce debounce;
        private Throttle throttle;

        /**
         * Debounces the job's submissions by {@code key} (one-off jobs due now): submissions with the key within
         * {@code periodSeconds} (1-86,400) collapse into one run with the last payload, trailing edge, waiting at most
         * 10 periods. {@link SubmitResult#debouncedInto()} names the run a submission joined.
         */
        public Builder debounce(String key, Integer periodSeconds) {
            return debounce(key, periodSeconds, null, null);
        }

        /**
         * As {@link #debounce(String, Integer)} with the longest wait ({@code maxWaitSeconds}, trailing only, null: 10
         * periods) and the {@code edge}: {@link Debounce#TRAILING} (null) or {@link Debounce#LEADING} (the first runs
         * at once, later ones within the period join it).
         */
        public Builder debounce(String key, Integer periodSeconds, Integer maxWaitSeconds, String edge) {
            this.debounce = new Debounce(key, periodSeconds, maxWaitSeconds, edge);
            return this;
        }

        /** At most {@code count} runs sharing {@code key} start per {@code perSeconds} across the cluster. */
        public Builder throttle(String key, Integer count, Integer perSeconds) {
            this.throttle = new Throttle(key, count, perSeconds);
            return this;
        }

        private String tenant;

        /**
         * The tenant the job is made in, sent as the {@code tenant} body field; null (the default) sends none, and the
         * server uses the tenant the request acts in ({@code X-ForgeFlow-Tenant}, the token's tenant, else
         * {@code default}). Not checked here: an invalid name is a 422 ({@code validation_failed}), another tenant than a
         * tenant-bound token's a 403 ({@code tenant_forbidden}).
         */
        public Builder tenant(String tenant) {
            this.tenant = tenant;
            return this;
        }

        public JobRequest build() {
            return new JobRequest(name, executor, payload, cronExpr, runAt, timezone, priority, maxAttempts,
                    timeoutSeconds, catchUp, idempotencyKey, queue, concurrencyKey, maxConcurrent, overlap, uniqueKey,
                    uniqueOnConflict, retry, labels, dependsOn, onParentFailure, startAt, endAt, maxRuns, jitterSeconds,
                    pauseAfterFailures, sequenceKey, onDead, notices, debounce, throttle, tenant);
        }
    }
}
