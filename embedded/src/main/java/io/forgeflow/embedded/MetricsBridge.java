package io.forgeflow.embedded;

import io.forgeflow.application.executor.HandlerPayload;
import io.forgeflow.application.worker.WorkerListener;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/** The worker's reports, passed to the application's {@link WorkerMetrics}; what the application's code throws is logged. */
final class MetricsBridge implements WorkerListener {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsBridge.class);

    private final WorkerMetrics metrics;

    MetricsBridge(WorkerMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void claimed(List<Run> runs) {
        guarded(() -> metrics.claimed(runs.size()));
    }

    @Override
    public void finished(Run run, AttemptOutcome outcome, RunStatus next, Duration took) {
        guarded(() -> metrics.attemptFinished(HandlerPayload.handlerOf(run.payload()), outcome.wireName(),
                next.wireName(), took));
    }

    @Override
    public void fenceLost(RunFence fence, String what) {
        guarded(() -> metrics.leaseLost(fence.runId(), fence.attempt()));
    }

    @Override
    public void busySlots(int busy) {
        guarded(() -> metrics.busySlots(busy));
    }

    void leasesRecovered(int runs) {
        guarded(() -> metrics.leasesRecovered(runs));
    }

    private static void guarded(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.debug("the application's metrics listener threw: {}", e.toString());
        }
    }
}
