package io.forgeflow.application.lease;

import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.application.support.RunLogContext;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import java.time.Duration;

/**
 * On the leader: gives the runs of dead workers back to the queue. It reads the expired leases, decides each with the
 * {@link OutcomePolicy} the workers use (pending after the retry backoff, dead when attempts are exhausted, so a job
 * that kills its worker every time still ends in the dead-letter queue; cancelled when an operator had asked), and has
 * the queue apply the decisions, each fenced: a lease a heartbeat extended meanwhile is left alone.
 */
public final class LeaseRescuer {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseRescuer.class);
    static final int BATCH = 500;
    private final RunQueue queue;
    private final LeaderElection election;
    private final OutcomePolicy policy;
    private final RunChanges changes;
    private final IntConsumer recovered;
    private final RunRepository runs;
    private final Tracing tracing;
    /** How long the rescuer must have led and reached the database, without a break, before it recovers anything. */
    private volatile long holdOffNanos;
    private volatile LongSupplier nanos = System::nanoTime;
    /** Since when (nanos) it has led and reached the database without a break; {@code null}: not now. */
    private Long clearSince;

    /** A rescuer that publishes no run events. @param recovered told how many runs each pass recovered; may be null */
    public LeaseRescuer(RunQueue queue, LeaderElection election, RetryPolicy retryPolicy, IntConsumer recovered) {
        this(queue, election, new OutcomePolicy(retryPolicy, new SplittableRandom()), RunChanges.NONE, recovered);
    }

    /**
     * @param policy  decides where each run goes (one rescuer calls it from one thread at a time)
     * @param changes told of every run it recovered
     */
    public LeaseRescuer(RunQueue queue, LeaderElection election, OutcomePolicy policy, RunChanges changes,
                        IntConsumer recovered) {
        this(queue, election, policy, changes, recovered, null, Tracing.NONE);
    }

    /**
     * A rescuer that records the {@code forgeflow.run} span of each run it ends (dead, or cancelled as asked), read
     * from {@code runs} after the decision was applied; a run it sends back to pending ends later, elsewhere.
     */
    public LeaseRescuer(RunQueue queue, LeaderElection election, OutcomePolicy policy, RunChanges changes,
                        IntConsumer recovered, RunRepository runs, Tracing tracing) {
        this.runs = runs;
        this.tracing = runs == null || tracing == null ? Tracing.NONE : tracing;
        this.queue = queue;
        this.election = election;
        this.policy = policy;
        this.changes = changes;
        this.recovered = recovered == null ? n -> { } : recovered;
    }

    /**
     * Recovers nothing until this node has led, and reached the database on every pass, for {@code blind} without a
     * break (the lease, in a node): a lease is judged on the database clock, and for the time the leader could not
     * see (a database restart, its own lost connection, an election) the workers could not heartbeat either, so each
     * gets a whole lease after such a break to be heard before its runs are taken. Returns this rescuer.
     */
    public LeaseRescuer holdingOffAfterBreaks(Duration blind) {
        this.holdOffNanos = blind.toNanos();
        return this;
    }

    /** The clock of the hold-off (tests). */
    LeaseRescuer withNanos(LongSupplier source) {
        this.nanos = source;
        return this;
    }

    /** One pass (only when this node leads). Returns how many runs were recovered. */
    public int runOnce() {
        if (!election.isLeader()) {
            clearSince = null;
            return 0;
        }
        long now = nanos.getAsLong();
        if (clearSince == null) {
            clearSince = now;
        }
        if (now - clearSince < holdOffNanos) {
            return 0;
        }
        try {
            return recoverAll();
        } catch (RuntimeException e) {
            clearSince = null;
            throw e;
        }
    }

    private int recoverAll() {
        int total = 0;
        List<ExpiredLease> expired;
        do {
            expired = queue.expiredLeases(BATCH);
            if (expired.isEmpty()) {
                break;
            }
            List<Acknowledgement> decisions = new ArrayList<>(expired.size());
            for (ExpiredLease lease : expired) {
                decisions.add(policy.afterExpiredLease(lease));
            }
            Set<RunFence> applied = queue.recover(decisions);
            List<Acknowledgement> done = new ArrayList<>(applied.size());
            List<String> jobIds = new ArrayList<>(applied.size());
            for (int i = 0; i < decisions.size(); i++) {
                if (applied.contains(decisions.get(i).fence())) {
                    done.add(decisions.get(i));
                    jobIds.add(expired.get(i).jobId());
                    log(expired.get(i), decisions.get(i));
                }
            }
            changes.ended(done, jobIds);
            traceEnds(done);
            total += applied.size();
            if (applied.isEmpty()) {
                break; // every lease read was extended or ended meanwhile: nothing to gain from reading again now
            }
        } while (expired.size() == BATCH && election.isLeader());
        recovered.accept(total);
        return total;
    }

    /** One run span per run this pass ended, unless the run moved on meanwhile (a requeue records its own). */
    private void traceEnds(List<Acknowledgement> done) {
        if (tracing == Tracing.NONE) {
            return;
        }
        for (Acknowledgement decision : done) {
            if (!decision.next().isTerminal()) {
                continue;
            }
            try {
                Run run = runs.find(decision.fence().runId()).orElse(null);
                if (run != null && run.status() == decision.next() && run.attempt() == decision.fence().attempt()) {
                    tracing.runEnded(run, decision.next(), decision.error());
                }
            } catch (RuntimeException e) {
                LOG.warn("run {}: its run span was not recorded ({})", decision.fence().runId(), e.toString());
            }
        }
    }

    private static void log(ExpiredLease lease, Acknowledgement decision) {
        RunFence fence = lease.fence();
        // worker_id is left out: the run has no worker any more; the error names the one that vanished
        try (RunLogContext ignored = RunLogContext.of(fence.runId(), lease.jobId(), fence.attempt(), null)) {
            LOG.warn("run {} of job {}: lease of attempt {} expired; {} ({})", fence.runId(), lease.jobId(),
                    fence.attempt(), decision.next() == RunStatus.DEAD ? "attempts exhausted, dead-lettered"
                            : decision.next() == RunStatus.CANCELLED ? "cancelled as an operator had asked"
                            : "back to the queue, due in " + decision.retryDelay().toMillis() + " ms",
                    decision.error());
        }
    }
}
