package io.forgeflow.server;

import io.forgeflow.application.worker.WorkerListener;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ForgeFlow's own Prometheus metrics (names and labels are documented in docs/metrics.md). The worker reports
 * through {@link WorkerListener}; gauges are read when scraped.
 */
final class ForgeFlowMetrics implements WorkerListener {
    private static final Logger LOG = LoggerFactory.getLogger(ForgeFlowMetrics.class);
    private static final double[] SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
            30, 60, 300, 900, 3600};

    private final Counter runs;
    private final Counter attempts;
    private final Counter claims;
    private final Counter fenced;
    private final Counter retries;
    private final Counter recoveries;
    private final Counter missedTicks;
    private final Histogram duration;
    private final Histogram pickup;
    private final AtomicInteger busy = new AtomicInteger();

    ForgeFlowMetrics(PrometheusRegistry registry, int slots, LeaderElection election, RunRepository runRepository) {
        runs = Counter.builder().name("forgeflow_runs_total")
                .help("Attempts acknowledged by this node's worker, by the status the run moved to")
                .labelNames("status", "executor").register(registry);
        attempts = Counter.builder().name("forgeflow_attempts_total")
                .help("Attempts finished by this node's worker, by outcome").labelNames("outcome", "executor").register(registry);
        claims = Counter.builder().name("forgeflow_claims_total").help("Runs claimed by this node's worker").register(registry);
        fenced = Counter.builder().name("forgeflow_fenced_writes_total")
                .help("Worker writes discarded because the lease had been lost").labelNames("what").register(registry);
        retries = Counter.builder().name("forgeflow_retries_total")
                .help("Failed attempts sent back to the queue with a backoff").labelNames("executor").register(registry);
        recoveries = Counter.builder().name("forgeflow_lease_recoveries_total")
                .help("Runs recovered by this node (as leader) after their worker's lease expired").register(registry);
        missedTicks = Counter.builder().name("forgeflow_missed_ticks_total")
                .help("Cron ticks skipped or folded into one run by catch_up (as leader)").register(registry);
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
        if (runRepository != null) {
            GaugeWithCallback.builder().name("forgeflow_queue_depth").help("Runs in each status (cluster-wide)")
                    .labelNames("status").callback(cb -> {
                        try {
                            for (Map.Entry<RunStatus, Long> e : runRepository.countByStatus().entrySet()) {
                                cb.call(e.getValue(), e.getKey().wireName());
                            }
                        } catch (RuntimeException e) {
                            LOG.debug("queue depth unavailable: {}", e.toString());
                        }
                    }).register(registry);
        }
    }

    void recovered(int n) {
        if (n > 0) {
            recoveries.inc(n);
        }
    }

    void missed(int n) {
        if (n > 0) {
            missedTicks.inc(n);
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
    public void fenceLost(RunFence fence, String what) {
        fenced.labelValues(what).inc();
    }

    @Override
    public void busySlots(int n) {
        busy.set(n);
    }
}
