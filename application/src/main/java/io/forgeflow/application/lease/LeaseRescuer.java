package io.forgeflow.application.lease;

import io.forgeflow.application.support.RunLogContext;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.function.IntConsumer;

/**
 * On the leader: gives the runs of dead workers back to the queue. A run whose lease expired becomes pending
 * (after the retry backoff) with a {@code lease_expired} attempt, or dead when its attempts are exhausted, so a job
 * that kills its worker every time still ends in the dead-letter queue instead of looping forever.
 */
public final class LeaseRescuer {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseRescuer.class);
    private static final int BATCH = 500;
    private final RunQueue queue;
    private final LeaderElection election;
    private final RetryPolicy retryPolicy;
    private final IntConsumer recovered;

    /** @param recovered told how many runs each pass recovered (a metric); may be null */
    public LeaseRescuer(RunQueue queue, LeaderElection election, RetryPolicy retryPolicy, IntConsumer recovered) {
        this.queue = queue;
        this.election = election;
        this.retryPolicy = retryPolicy;
        this.recovered = recovered == null ? n -> { } : recovered;
    }

    /** One pass (only when this node leads). Returns how many runs were recovered. */
    public int runOnce() {
        if (!election.isLeader()) {
            return 0;
        }
        int total = 0;
        List<Run> batch;
        do {
            batch = queue.recoverExpiredLeases(retryPolicy, BATCH);
            for (Run run : batch) {
                // worker_id is left out: the run has no worker any more; the error names the one that vanished
                try (RunLogContext ignored = RunLogContext.of(run.id(), run.jobId(), run.attempt(), null)) {
                    LOG.warn("run {} of job {}: lease of attempt {} expired; {} ({})", run.id(), run.jobId(),
                            run.attempt(), run.status() == RunStatus.DEAD ? "attempts exhausted, dead-lettered"
                                    : run.status() == RunStatus.CANCELLED ? "cancelled as an operator had asked"
                                    : "back to the queue, due " + run.scheduledFor(), run.error());
                }
            }
            total += batch.size();
        } while (batch.size() == BATCH && election.isLeader());
        recovered.accept(total);
        return total;
    }
}
