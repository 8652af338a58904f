package io.forgeflow.application.lease;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;

class LeaseRescuerTest {
    static final RetryPolicy RETRY = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    final Scenario s = new Scenario();
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final List<Integer> recovered = Collections.synchronizedList(new ArrayList<>());
    final LeaseRescuer rescuer = new LeaseRescuer(s.store.queue(), election, RETRY, recovered::add);

    /** A run of a fresh one-off job, claimed by a worker that then died: its lease ends at START + 30 s. */
    Run runningOnADeadWorker(int maxAttempts) {
        s.submit(aDraft().withMaxAttempts(maxAttempts));
        return s.claim("dead-worker");
    }

    @Test
    void anExpiredLeaseGoesBackToPendingWithALeaseExpiredAttempt() {
        Run held = runningOnADeadWorker(3);
        s.advance(Duration.ofSeconds(31));

        assertThat(rescuer.runOnce()).isEqualTo(1);

        Run back = s.run(held.id());
        assertThat(back.status()).isEqualTo(RunStatus.PENDING);
        assertThat(back.workerId()).isNull();
        assertThat(back.leaseExpiresAt()).isNull();
        assertThat(back.attempt()).as("the lost attempt counts").isEqualTo(1);
        assertThat(back.scheduledFor()).as("due after the retry backoff")
                .isBetween(s.clock.instant(), s.clock.instant().plus(RETRY.ceilingAfter(1)));
        List<Attempt> attempts = s.attemptsOf(held.id());
        assertThat(attempts).singleElement().satisfies(a -> {
            assertThat(a.outcome()).isEqualTo(AttemptOutcome.LEASE_EXPIRED);
            assertThat(a.workerId()).isEqualTo("dead-worker");
            assertThat(a.finishedAt()).isEqualTo(s.clock.instant());
        });
        assertThat(recovered).containsExactly(1);
    }

    @Test
    void aRecoveredRunIsClaimedAgainUnderANewAttempt() {
        Run held = runningOnADeadWorker(3);
        s.advance(Duration.ofSeconds(31));
        rescuer.runOnce();
        s.advance(RETRY.ceilingAfter(1));

        Run again = s.claim("healthy-worker");

        assertThat(again.id()).isEqualTo(held.id());
        assertThat(again.attempt()).isEqualTo(2);
    }

    @Test
    void anExpiredLeaseAtMaxAttemptsIsDeadLetteredAndItsOneOffJobCompletes() {
        Run held = runningOnADeadWorker(1);
        s.advance(Duration.ofMinutes(5));

        assertThat(rescuer.runOnce()).isEqualTo(1);

        Run dead = s.run(held.id());
        assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
        assertThat(dead.finishedAt()).isEqualTo(s.clock.instant());
        assertThat(dead.error()).contains("lease expired");
        assertThat(s.attemptsOf(held.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.LEASE_EXPIRED);
        assertThat(s.job(held.jobId()).status()).isEqualTo(JobStatus.COMPLETED);
    }

    @Test
    void aValidLeaseIsLeftAlone() {
        Run held = runningOnADeadWorker(3);
        s.advance(Duration.ofSeconds(29));

        assertThat(rescuer.runOnce()).isZero();

        assertThat(s.run(held.id())).isEqualTo(held);
        assertThat(recovered).containsExactly(0);
    }

    @Test
    void aLeaseExtendedByAHeartbeatIsLeftAlone() {
        Run held = runningOnADeadWorker(3);
        s.advance(Duration.ofSeconds(20));
        s.store.queue().heartbeat("dead-worker", Scenario.LEASE);
        s.advance(Duration.ofSeconds(20));

        assertThat(rescuer.runOnce()).isZero();
        assertThat(s.run(held.id()).status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void onlyTheLeaderRecovers() {
        Run held = runningOnADeadWorker(3);
        s.advance(Duration.ofMinutes(1));
        election.setLeader(false);

        assertThat(rescuer.runOnce()).isZero();

        assertThat(s.run(held.id()).status()).isEqualTo(RunStatus.RUNNING);
        assertThat(recovered).isEmpty();
    }

    @Test
    void recoversEveryExpiredRunAcrossBatchesAndCountsThemOnce() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        for (int i = 0; i < 1_201; i++) {
            s.triggerJob().trigger(job.id());
        }
        assertThat(s.store.queue().claim("dead-worker", Scenario.ALL_EXECUTORS, 2_000, Scenario.LEASE)).hasSize(1_201);
        s.advance(Duration.ofMinutes(1));

        assertThat(rescuer.runOnce()).isEqualTo(1_201);

        assertThat(s.runsOf(job.id())).extracting(Run::status).containsOnly(RunStatus.PENDING);
        assertThat(recovered).containsExactly(1_201);
    }

    @Test
    void stopsBetweenBatchesOnceLeadershipIsLost() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        for (int i = 0; i < 600; i++) {
            s.triggerJob().trigger(job.id());
        }
        s.store.queue().claim("dead-worker", Scenario.ALL_EXECUTORS, 1_000, Scenario.LEASE);
        s.advance(Duration.ofMinutes(1));
        RunQueue losesAfterOneBatch = new LosesLeadershipAfterRecovery(s.store.queue(), election);

        int total = new LeaseRescuer(losesAfterOneBatch, election, RETRY, recovered::add).runOnce();

        assertThat(total).isEqualTo(500);
        assertThat(s.runsOf(job.id())).filteredOn(r -> r.status() == RunStatus.RUNNING).hasSize(100);
        assertThat(recovered).containsExactly(500);
    }

    @Test
    void aMissingCallbackIsAllowed() {
        runningOnADeadWorker(3);
        s.advance(Duration.ofMinutes(1));

        assertThat(new LeaseRescuer(s.store.queue(), election, RETRY, null).runOnce()).isEqualTo(1);
    }

    /** A queue whose every lease recovery costs the node its leadership (the lock's connection dropped). */
    static final class LosesLeadershipAfterRecovery implements RunQueue {
        private final RunQueue delegate;
        private final FakeLeaderElection election;

        LosesLeadershipAfterRecovery(RunQueue delegate, FakeLeaderElection election) {
            this.delegate = delegate;
            this.election = election;
        }

        @Override
        public List<Run> claim(String workerId, Set<String> executors, io.forgeflow.domain.queue.QueueSelection queues,
                               int limit, Duration lease) {
            return delegate.claim(workerId, executors, queues, limit, lease);
        }

        @Override
        public Set<RunFence> acknowledge(Collection<Acknowledgement> acks) {
            return delegate.acknowledge(acks);
        }

        @Override
        public Heartbeat heartbeat(String workerId, Duration lease) {
            return delegate.heartbeat(workerId, lease);
        }

        @Override
        public Heartbeat heartbeat(String workerId, Collection<RunFence> held, Duration lease) {
            return delegate.heartbeat(workerId, held, lease);
        }

        @Override
        public Set<String> cancellationsFor(String workerId) {
            return delegate.cancellationsFor(workerId);
        }

        @Override
        public Set<RunFence> release(Collection<RunFence> fences) {
            return delegate.release(fences);
        }

        @Override
        public List<io.forgeflow.domain.port.ExpiredLease> expiredLeases(int limit) {
            return delegate.expiredLeases(limit);
        }

        @Override
        public Set<RunFence> recover(Collection<Acknowledgement> decisions) {
            Set<RunFence> recovered = delegate.recover(decisions);
            election.setLeader(false);
            return recovered;
        }
    }

    @Test
    void afterABreakItRecoversNothingUntilItHasLedAndReachedTheDatabaseForTheHoldOff() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        ScriptedFailures failing = new ScriptedFailures(s.store.queue());
        LeaseRescuer held = new LeaseRescuer(failing, election, RETRY, recovered::add)
                .holdingOffAfterBreaks(Duration.ofSeconds(30)).withNanos(nanos::get);
        Run run = runningOnADeadWorker(3);
        s.advance(Duration.ofSeconds(31));

        assertThat(held.runOnce()).as("it has just begun to lead").isZero();
        nanos.addAndGet(Duration.ofSeconds(29).toNanos());
        assertThat(held.runOnce()).isZero();
        failing.failNext = true;                                  // its connection breaks
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        org.assertj.core.api.Assertions.assertThatThrownBy(held::runOnce).hasMessageContaining("unreachable");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(held.runOnce()).as("a new hold-off from the break").isZero();
        election.setLeader(false);
        nanos.addAndGet(Duration.ofSeconds(30).toNanos());
        assertThat(held.runOnce()).isZero();
        election.setLeader(true);
        assertThat(held.runOnce()).as("it leads again: a new hold-off").isZero();
        nanos.addAndGet(Duration.ofSeconds(30).toNanos());

        assertThat(held.runOnce()).isEqualTo(1);
        assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.PENDING);
    }

    /** The fake queue, with its lease reads failing on demand (the database away). */
    static final class ScriptedFailures implements io.forgeflow.domain.port.RunQueue {
        private final io.forgeflow.domain.port.RunQueue queue;
        boolean failNext;

        ScriptedFailures(io.forgeflow.domain.port.RunQueue queue) {
            this.queue = queue;
        }

        @Override
        public List<io.forgeflow.domain.port.ExpiredLease> expiredLeases(int limit) {
            if (failNext) {
                failNext = false;
                throw new IllegalStateException("database unreachable");
            }
            return queue.expiredLeases(limit);
        }

        @Override
        public java.util.Set<io.forgeflow.domain.port.RunFence> recover(
                java.util.Collection<io.forgeflow.domain.port.Acknowledgement> decisions) {
            return queue.recover(decisions);
        }

        @Override
        public List<Run> claim(String workerId, java.util.Set<String> executors,
                               io.forgeflow.domain.queue.QueueSelection queues, int limit, Duration lease) {
            return queue.claim(workerId, executors, queues, limit, lease);
        }

        @Override
        public java.util.Set<io.forgeflow.domain.port.RunFence> acknowledge(
                java.util.Collection<io.forgeflow.domain.port.Acknowledgement> acks) {
            return queue.acknowledge(acks);
        }

        @Override
        public Heartbeat heartbeat(String workerId, Duration lease) {
            return queue.heartbeat(workerId, lease);
        }

        @Override
        public Heartbeat heartbeat(String workerId, java.util.Collection<io.forgeflow.domain.port.RunFence> held,
                                   Duration lease) {
            return queue.heartbeat(workerId, held, lease);
        }

        @Override
        public java.util.Set<String> cancellationsFor(String workerId) {
            return queue.cancellationsFor(workerId);
        }

        @Override
        public java.util.Set<io.forgeflow.domain.port.RunFence> release(
                java.util.Collection<io.forgeflow.domain.port.RunFence> fences) {
            return queue.release(fences);
        }
    }
}
