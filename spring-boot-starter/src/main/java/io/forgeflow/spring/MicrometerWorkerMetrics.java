package io.forgeflow.spring;

import io.forgeflow.embedded.WorkerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The embedded worker's events as Micrometer meters, named so that a Prometheus registry shows the node's names:
 * {@code forgeflow.claims} ({@code forgeflow_claims_total}), {@code forgeflow.attempts} by handler, outcome and
 * next status ({@code forgeflow_attempts_total}), {@code forgeflow.run.duration} ({@code
 * forgeflow_run_duration_seconds}), {@code forgeflow.fenced.writes}, {@code forgeflow.lease.recoveries},
 * {@code forgeflow.worker.slots} (busy) and {@code forgeflow.handlers.left.behind}.
 */
final class MicrometerWorkerMetrics implements WorkerMetrics {
    private final MeterRegistry registry;
    private final Counter claims;
    private final Counter fenced;
    private final Counter recoveries;
    private final AtomicInteger busy = new AtomicInteger();
    private final AtomicInteger leftBehind = new AtomicInteger();

    MicrometerWorkerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.claims = Counter.builder("forgeflow.claims").description("Runs claimed by this embedded worker")
                .register(registry);
        this.fenced = Counter.builder("forgeflow.fenced.writes")
                .description("Results or heartbeats discarded because the worker had lost the run's lease")
                .register(registry);
        this.recoveries = Counter.builder("forgeflow.lease.recoveries")
                .description("Runs recovered from vanished workers by this application's scheduler role")
                .register(registry);
        registry.gauge("forgeflow.worker.slots", java.util.List.of(io.micrometer.core.instrument.Tag.of("state", "busy")),
                busy);
        registry.gauge("forgeflow.handlers.left.behind", leftBehind);
    }

    @Override
    public void claimed(int runs) {
        claims.increment(runs);
    }

    @Override
    public void attemptFinished(String handler, String outcome, String next, Duration took) {
        Counter.builder("forgeflow.attempts").description("Attempts ended, by handler, outcome and next status")
                .tag("handler", handler).tag("outcome", outcome).tag("next", next).register(registry).increment();
        Timer.builder("forgeflow.run.duration").description("How long attempts ran").tag("handler", handler)
                .tag("outcome", outcome).register(registry).record(took);
    }

    @Override
    public void leaseLost(String runId, int attempt) {
        fenced.increment();
    }

    @Override
    public void busySlots(int busy) {
        this.busy.set(busy);
    }

    @Override
    public void handlerIgnoredInterruption(String handler, String runId, int attempt) {
        leftBehind.incrementAndGet();
    }

    @Override
    public void leasesRecovered(int runs) {
        recoveries.increment(runs);
    }
}
