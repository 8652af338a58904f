package io.forgeflow.server;

import io.forgeflow.application.retention.RetentionSweeper;
import io.forgeflow.application.worker.WorkerListener;
import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.QueueStats;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * ForgeFlow's own Prometheus metrics (every name, type and label is documented in docs/metrics.md). The worker
 * reports through {@link WorkerListener}; the leader's loops through {@link #recovered}, {@link #missed} and
 * {@link #retentionDeleted}; gauges are read when scraped. The cluster-wide queue gauges come from one
 * {@link QueueStats} snapshot, cached for {@value #QUEUE_CACHE_MILLIS} ms so that several scrapers cost one query.
 */
final class ForgeFlowMetrics implements WorkerListener {
    static final long QUEUE_CACHE_MILLIS = 2_000;

    private static final Logger LOG = LoggerFactory.getLogger(ForgeFlowMetrics.class);
    private static final double[] SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
            30, 60, 300, 900, 3600};

    private final PrometheusRegistry registry;
    private final Counter runs;
    private final Counter attempts;
    private final Counter claims;
    private final Counter debounced;
    private final Counter fenced;
    private final Counter retries;
    private final Counter permanentFailures;
    private final Counter retryAfterWaits;
    private final Counter recoveries;
    private final Counter missedTicks;
    private final Counter retention;
    private final Counter historyMoved;
    private final Counter historyDaysDropped;
    private final Counter batchesCreated;
    private final Counter batchJobs;
    private final Counter batchesCompleted;
    private final Histogram duration;
    private final Histogram pickup;
    private final AtomicInteger busy = new AtomicInteger();
    private final QueueStats queueStats;
    private volatile QueueStats.Snapshot queue;
    private volatile long queueReadAtNanos;

    ForgeFlowMetrics(PrometheusRegistry registry, int slots, LeaderElection election, QueueStats queueStats) {
        this.registry = registry;
        this.queueStats = queueStats;
        runs = Counter.builder().name("forgeflow_runs_total")
                .help("Attempts acknowledged by this node's worker, by the status the run moved to")
                .labelNames("status", "executor").register(registry);
        attempts = Counter.builder().name("forgeflow_attempts_total")
                .help("Attempts finished by this node's worker, by outcome").labelNames("outcome", "executor").register(registry);
        claims = Counter.builder().name("forgeflow_claims_total").help("Runs claimed by this node's worker").register(registry);
        debounced = Counter.builder().name("forgeflow_debounced_submissions_total")
                .help("Submissions to this node a debounce joined to an existing run, by edge").labelNames("edge")
                .register(registry);
        debounced.labelValues("trailing");
        debounced.labelValues("leading");
        fenced = Counter.builder().name("forgeflow_fenced_writes_total")
                .help("Worker writes discarded because the lease had been lost").labelNames("what").register(registry);
        retries = Counter.builder().name("forgeflow_retries_total")
                .help("Failed attempts sent back to the queue with a backoff").labelNames("executor").register(registry);
        permanentFailures = Counter.builder().name("forgeflow_permanent_failures_total")
                .help("Failed attempts whose run went to dead at once because the executor said the failure is permanent")
                .labelNames("executor").register(registry);
        retryAfterWaits = Counter.builder().name("forgeflow_retry_after_waits_total")
                .help("Retries whose earliest time a downstream's Retry-After set").labelNames("executor")
                .register(registry);
        recoveries = Counter.builder().name("forgeflow_lease_recoveries_total")
                .help("Runs recovered by this node (as leader) after their worker's lease expired").register(registry);
        missedTicks = Counter.builder().name("forgeflow_missed_ticks_total")
                .help("Cron ticks skipped or folded into one run by catch_up (as leader)").register(registry);
        retention = Counter.builder().name("forgeflow_retention_deleted_total")
                .help("Rows deleted by this node (as leader) because they were older than the retention")
                .labelNames("table").register(registry);
        batchesCreated = Counter.builder().name("forgeflow_batches_submitted_total")
                .help("Batches created through this node's API").register(registry);
        batchJobs = Counter.builder().name("forgeflow_batch_jobs_submitted_total")
                .help("Jobs created in batches through this node's API").register(registry);
        batchesCompleted = Counter.builder().name("forgeflow_batches_completed_total")
                .help("Batches completed by this node (as leader): every job ended, on_complete released")
                .register(registry);
        for (String table : List.of("runs", "jobs", "nodes")) {
            retention.labelValues(table);
        }
        historyMoved = Counter.builder().name("forgeflow_history_moved_total")
                .help("Finished runs this node (as leader) moved, with their attempts, to the finished history")
                .register(registry);
        historyDaysDropped = Counter.builder().name("forgeflow_history_partitions_dropped_total")
                .help("Daily partitions of finished history this node (as leader) dropped whole at retention")
                .register(registry);
        duration = Histogram.builder().name("forgeflow_run_duration_seconds").help("Execution time of one attempt")
                .labelNames("executor", "outcome").classicUpperBounds(SECONDS).register(registry);
        pickup = Histogram.builder().name("forgeflow_pickup_latency_seconds")
                .help("Claim time minus scheduled_for (database clock)").labelNames("executor")
                .classicUpperBounds(SECONDS).register(registry);
        GaugeWithCallback.builder().name("forgeflow_worker_slots").help("Execution slots of this node's worker")
                .labelNames("state").callback(cb -> {
                    cb.call(busy.get(), "busy");
                    cb.call(Math.max(0, slots - busy.get()), "free");
                }).register(registry);
        GaugeWithCallback.builder().name("forgeflow_scheduler_leader")
                .help("1 when this node leads the scheduler").callback(cb -> cb.call(election != null && election.isLeader() ? 1 : 0))
                .register(registry);
        if (queueStats != null) {
            GaugeWithCallback.builder().name("forgeflow_queue_depth").help("Runs in each status (cluster-wide)")
                    .labelNames("status").callback(cb -> {
                        QueueStats.Snapshot snapshot = queueSnapshot();
                        if (snapshot != null) {
                            for (Map.Entry<RunStatus, Long> e : snapshot.depth().entrySet()) {
                                cb.call(e.getValue(), e.getKey().wireName());
                            }
                        }
                    }).register(registry);
            GaugeWithCallback.builder().name("forgeflow_throttled_runs")
                    .help("Pending runs with a throttle that are not due yet, most waiting for their key's window "
                            + "(cluster-wide)")
                    .callback(cb -> {
                        QueueStats.Snapshot snapshot = queueSnapshot();
                        if (snapshot != null) {
                            cb.call(snapshot.throttled());
                        }
                    }).register(registry);
            GaugeWithCallback.builder().name("forgeflow_tenant_runs")
                    .help("Pending and running runs by tenant (cluster-wide): the " + TOP_TENANTS + " tenants with the "
                            + "most, the rest summed as tenant=\"" + OTHER_TENANTS + "\" (not a tenant name)")
                    .labelNames("tenant", "status").callback(cb -> {
                        QueueStats.Snapshot snapshot = queueSnapshot();
                        if (snapshot != null) {
                            topTenants(snapshot, TOP_TENANTS).forEach((tenant, load) -> {
                                cb.call(load.pending(), tenant, "pending");
                                cb.call(load.running(), tenant, "running");
                            });
                        }
                    }).register(registry);
            GaugeWithCallback.builder().name("forgeflow_queue_lag_seconds")
                    .help("How long the oldest due pending run has waited (cluster-wide; 0 when none is due)")
                    .callback(cb -> {
                        QueueStats.Snapshot snapshot = queueSnapshot();
                        if (snapshot != null) {
                            cb.call(snapshot.lag().toNanos() / 1e9);
                        }
                    }).register(registry);
        }
    }

    /** Tenants with a series of their own in {@code forgeflow_tenant_runs}; the label's values stay bounded. */
    static final int TOP_TENANTS = 20;
    /** The tenant label of the runs of the tenants past {@link #TOP_TENANTS}. */
    static final String OTHER_TENANTS = "(other)";

    /**
     * {@code forgeflow_tenant_runs}' series: default (always), the {@code top} other tenants with the most live runs
     * (ties by name), and the rest summed as {@value #OTHER_TENANTS} (only when there is a rest).
     */
    static Map<String, QueueStats.TenantLoad> topTenants(QueueStats.Snapshot snapshot, int top) {
        Map<String, QueueStats.TenantLoad> series = new java.util.LinkedHashMap<>();
        long pending = snapshot.depth().get(RunStatus.PENDING);
        long running = snapshot.depth().get(RunStatus.RUNNING);
        List<Map.Entry<String, QueueStats.TenantLoad>> ranked = new java.util.ArrayList<>(snapshot.tenants().entrySet());
        ranked.sort(java.util.Comparator.<Map.Entry<String, QueueStats.TenantLoad>>comparingLong(e -> -e.getValue().live())
                .thenComparing(Map.Entry::getKey));
        long restPending = 0;
        long restRunning = 0;
        for (int i = 0; i < ranked.size(); i++) {
            QueueStats.TenantLoad load = ranked.get(i).getValue();
            pending -= load.pending();
            running -= load.running();
            if (i < top) {
                series.put(ranked.get(i).getKey(), load);
            } else {
                restPending += load.pending();
                restRunning += load.running();
            }
        }
        // the default tenant's: what the counts by status leave (both are read in one statement)
        Map<String, QueueStats.TenantLoad> all = new java.util.LinkedHashMap<>();
        all.put(io.forgeflow.domain.tenant.Tenants.DEFAULT,
                new QueueStats.TenantLoad(Math.max(0, pending), Math.max(0, running)));
        all.putAll(series);
        if (ranked.size() > top) {
            all.put(OTHER_TENANTS, new QueueStats.TenantLoad(restPending, restRunning));
        }
        return all;
    }

    /** The values of {@code forgeflow_fenced_writes_total{what}} the worker reports. */
    static final List<String> FENCED_WRITES = List.of("late acknowledgement", "result of an attempt whose lease was lost");
    /** The outcomes a worker's attempts end with (lease_expired is the leader's, released a drain's: not counted). */
    static final List<AttemptOutcome> WORKER_OUTCOMES = List.of(AttemptOutcome.SUCCEEDED, AttemptOutcome.FAILED,
            AttemptOutcome.TIMED_OUT, AttemptOutcome.CANCELLED, AttemptOutcome.SNOOZED, AttemptOutcome.GAVE_UP);
    /** The statuses an acknowledged attempt moves its run to. */
    static final List<RunStatus> NEXT_STATUSES = List.of(RunStatus.SUCCEEDED, RunStatus.PENDING, RunStatus.DEAD,
            RunStatus.CANCELLED);

    /**
     * Creates every labelled series at zero for every known label value (each enabled executor, status, outcome and
     * fenced write), so that a scrape tells zero from "not exported" and rates work from the first event; and
     * {@code forgeflow_build_info{version, revision}} = 1.
     */
    void initialize(Collection<String> executors, BuildInfo build) {
        for (String executor : executors) {
            for (RunStatus next : NEXT_STATUSES) {
                runs.labelValues(next.wireName(), executor);
            }
            for (AttemptOutcome outcome : WORKER_OUTCOMES) {
                attempts.labelValues(outcome.wireName(), executor);
                duration.labelValues(executor, outcome.wireName());
            }
            pickup.labelValues(executor);
            retries.labelValues(executor);
            permanentFailures.labelValues(executor);
            retryAfterWaits.labelValues(executor);
        }
        for (String what : FENCED_WRITES) {
            fenced.labelValues(what);
        }
        // an info metric: exported as forgeflow_build_info{version, revision} 1
        Info.builder().name("forgeflow_build").help("This node's ForgeFlow version and the git revision it was built "
                + "from; always 1").labelNames("version", "revision").register(registry)
                .setLabelValues(build.version(), build.revision());
    }

    /** The watch for SQL enqueues (issue 40): whether this node watches now, and how many watches it started. */
    void watchSqlEnqueues(java.util.function.BooleanSupplier watching, LongSupplier started) {
        GaugeWithCallback.builder().name("forgeflow_sql_watch")
                .help("1 while this node watches for runs enqueue() adds without a NOTIFY")
                .callback(cb -> cb.call(watching.getAsBoolean() ? 1 : 0)).register(registry);
        CounterWithCallback.builder().name("forgeflow_sql_watches_total")
                .help("Watches for SQL enqueues this node started (each began with a burst of enqueue() calls)")
                .callback(cb -> cb.call(started.getAsLong())).register(registry);
    }

    /** The live event stream's metrics: changes published and dropped by this node, and its open streams. */
    void watchEvents(LongSupplier published, LongSupplier dropped, LongSupplier received, IntSupplier openStreams) {
        CounterWithCallback.builder().name("forgeflow_events_published_total")
                .help("Run changes this node published on the cluster's event channel")
                .callback(cb -> cb.call(published.getAsLong())).register(registry);
        CounterWithCallback.builder().name("forgeflow_events_dropped_total")
                .help("Run changes this node could not publish (event clients were told to re-read)")
                .callback(cb -> cb.call(dropped.getAsLong())).register(registry);
        if (openStreams != null) {
            CounterWithCallback.builder().name("forgeflow_events_received_total")
                    .help("Run changes this api node received from the cluster's event channel")
                    .callback(cb -> cb.call(received.getAsLong())).register(registry);
            GaugeWithCallback.builder().name("forgeflow_event_streams")
                    .help("Open GET /api/events streams on this node")
                    .callback(cb -> cb.call(openStreams.getAsInt())).register(registry);
        }
    }

    void debounced(String edge) {
        debounced.labelValues(edge).inc();
    }

    void recovered(int n) {
        if (n > 0) {
            recoveries.inc(n);
        }
    }

    void batchCreated(int jobs) {
        batchesCreated.inc();
        batchJobs.inc(jobs);
    }

    void batchesCompleted(int n) {
        if (n > 0) {
            batchesCompleted.inc(n);
        }
    }

    void missed(int n) {
        if (n > 0) {
            missedTicks.inc(n);
        }
    }

    void retentionDeleted(String table, int n) {
        if (n <= 0) {
            return;
        }
        switch (table) {
            case RetentionSweeper.MOVED -> historyMoved.inc(n);
            case RetentionSweeper.DAYS_DROPPED -> historyDaysDropped.inc(n);
            default -> retention.labelValues(table).inc(n);
        }
    }

    @Override
    public void claimed(List<Run> claimed) {
        if (claimed.isEmpty()) {
            return;
        }
        claims.inc(claimed.size());
        for (Run r : claimed) {
            if (r.startedAt() != null) {
                double s = Duration.between(r.scheduledFor(), r.startedAt()).toNanos() / 1e9;
                pickup.labelValues(r.executor()).observe(Math.max(0, s));
            }
        }
    }

    @Override
    public void finished(Run run, AttemptOutcome outcome, RunStatus next, Duration took) {
        runs.labelValues(next.wireName(), run.executor()).inc();
        attempts.labelValues(outcome.wireName(), run.executor()).inc();
        duration.labelValues(run.executor(), outcome.wireName()).observe(took.toNanos() / 1e9);
        if (next == RunStatus.PENDING) {
            retries.labelValues(run.executor()).inc();
        }
    }

    @Override
    public void failureDecided(Run run, FailureDecision decision) {
        if (decision.permanent()) {
            permanentFailures.labelValues(run.executor()).inc();
        }
        if (decision.retryAfter() != null) {
            retryAfterWaits.labelValues(run.executor()).inc();
        }
    }

    @Override
    public void fenceLost(RunFence fence, String what) {
        fenced.labelValues(what).inc();
    }

    @Override
    public void busySlots(int n) {
        busy.set(n);
    }

    /** The last snapshot if fresh enough, else a new one; null when the database cannot be read (no sample then). */
    private synchronized QueueStats.Snapshot queueSnapshot() {
        long now = System.nanoTime();
        if (queue != null && now - queueReadAtNanos < QUEUE_CACHE_MILLIS * 1_000_000) {
            return queue;
        }
        try {
            queue = queueStats.snapshot();
            queueReadAtNanos = now;
            return queue;
        } catch (RuntimeException e) {
            LOG.debug("queue metrics unavailable: {}", e.toString());
            queue = null;
            return null;
        }
    }
}
