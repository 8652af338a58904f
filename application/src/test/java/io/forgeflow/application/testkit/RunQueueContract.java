package io.forgeflow.application.testkit;

import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * What every {@link RunQueue} does, seeded and observed only through the ports (so an adapter's test can extend
 * it too): claim order and exclusivity, fenced acknowledgements, heartbeats, release and lease recovery. "Now" is
 * {@link #clock()}, which the implementation under test must use as its database clock.
 */
public abstract class RunQueueContract {
    protected static final String WORKER_A = "worker-a";
    protected static final String WORKER_B = "worker-b";
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Set<String> SHELL = Set.of("shell");

    protected abstract MutableClock clock();

    protected abstract JobRepository jobs();

    protected abstract RunRepository runs();

    protected abstract RunQueue queue();

    /** The notices outbox of the same store. */
    protected abstract io.forgeflow.domain.port.NoticeOutbox notices();

    private Job recurringJob;

    /** A recurring job (it never completes) to hang runs on. */
    protected Job recurringJob() {
        if (recurringJob == null) {
            Instant now = clock().instant();
            JobSpec spec = new JobSpec("contract", "shell", Map.of("command", "true"), "*/5 * * * *", null, "UTC", 5, 3,
                    60, CatchUp.SKIP, null);
            recurringJob = jobs().create(new Job(Ids.newId(now), spec, JobStatus.ACTIVE, now.plusSeconds(300), now, now),
                    null).job();
        }
        return recurringJob;
    }

    protected Run pendingRun(int priority, Instant dueAt) {
        return pendingRun(priority, dueAt, "shell", 3);
    }

    protected Run pendingRun(int priority, Instant dueAt, String executor, int maxAttempts) {
        Instant now = clock().instant();
        return runs().insert(Run.pending(Ids.newId(now), recurringJob().id(), maxAttempts, priority, dueAt, executor,
                Map.of("command", "true"), 60, now));
    }

    protected Run claimOne(String worker) {
        List<Run> claimed = queue().claim(worker, SHELL, 1, LEASE);
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    protected static RunFence fence(Run run) {
        return new RunFence(run.id(), run.workerId(), run.attempt());
    }

    protected static Acknowledgement success(RunFence fence) {
        return new Acknowledgement(fence, AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, Duration.ZERO, "done", null);
    }

    protected Run reload(Run run) {
        return runs().find(run.id()).orElseThrow();
    }

    @Nested
    class Claim {
        @Test
        void claimTakesDueRunsByPriorityThenDueTime() {
            Instant now = clock().instant();
            Run lowOld = pendingRun(9, now.minusSeconds(300));
            Run midNewer = pendingRun(5, now.minusSeconds(10));
            Run high = pendingRun(1, now.minusSeconds(1));
            Run midOlder = pendingRun(5, now.minusSeconds(20));

            List<Run> claimed = queue().claim(WORKER_A, SHELL, 10, LEASE);

            assertThat(claimed).extracting(Run::id)
                    .containsExactly(high.id(), midOlder.id(), midNewer.id(), lowOld.id());
        }

        @Test
        void claimBreaksTiesById() {
            Instant due = clock().instant().minusSeconds(1);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ids.add(pendingRun(5, due).id());
            }

            List<Run> claimed = queue().claim(WORKER_A, SHELL, 10, LEASE);

            assertThat(claimed).extracting(Run::id).containsExactlyElementsOf(ids.stream().sorted().collect(Collectors.toList()));
        }

        @Test
        void claimLeavesRunsThatAreNotDueYet() {
            Run due = pendingRun(5, clock().instant());
            pendingRun(1, clock().instant().plusSeconds(1));

            assertThat(queue().claim(WORKER_A, SHELL, 10, LEASE)).extracting(Run::id).containsExactly(due.id());
        }

        @Test
        void claimTakesOnlyRunsOfTheGivenExecutors() {
            pendingRun(1, clock().instant(), "http", 3);
            Run shell = pendingRun(5, clock().instant());

            assertThat(queue().claim(WORKER_A, SHELL, 10, LEASE)).extracting(Run::id).containsExactly(shell.id());
            assertThat(queue().claim(WORKER_B, Set.of("http", "shell"), 10, LEASE)).extracting(Run::executor)
                    .containsExactly("http");
        }

        @Test
        void claimHoldsTheRunUnderANewAttemptWithALeaseAndAStartedAttemptRow() {
            Run run = pendingRun(5, clock().instant());

            Run held = claimOne(WORKER_A);

            assertThat(held.id()).isEqualTo(run.id());
            assertThat(held.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(held.workerId()).isEqualTo(WORKER_A);
            assertThat(held.attempt()).isEqualTo(1);
            assertThat(held.leaseExpiresAt()).isEqualTo(clock().instant().plus(LEASE));
            assertThat(reload(run)).isEqualTo(held);
            List<Attempt> attempts = runs().attempts(run.id());
            assertThat(attempts).singleElement().satisfies(a -> {
                assertThat(a.attempt()).isEqualTo(1);
                assertThat(a.workerId()).isEqualTo(WORKER_A);
                assertThat(a.startedAt()).isEqualTo(clock().instant());
                assertThat(a.outcome()).isNull();
            });
        }

        @Test
        void claimStopsAtTheLimitAndALaterClaimTakesTheRest() {
            for (int i = 0; i < 5; i++) {
                pendingRun(5, clock().instant());
            }

            List<Run> first = queue().claim(WORKER_A, SHELL, 3, LEASE);
            List<Run> second = queue().claim(WORKER_B, SHELL, 3, LEASE);

            assertThat(first).hasSize(3);
            assertThat(second).hasSize(2);
            assertThat(second).extracting(Run::id).doesNotContainAnyElementsOf(first.stream().map(Run::id).collect(Collectors.toList()));
        }

        @Test
        void concurrentClaimersTakeDisjointRunsThatTogetherCoverAll() {
            int total = 300;
            Set<String> all = new HashSet<>();
            for (int i = 0; i < total; i++) {
                all.add(pendingRun(1 + i % 9, clock().instant()).id());
            }
            CyclicBarrier start = new CyclicBarrier(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                    List<Future<List<String>>> claims = new ArrayList<>();
                    for (String worker : List.of(WORKER_A, WORKER_B)) {
                        claims.add(pool.submit(() -> {
                            start.await();
                            List<String> mine = new ArrayList<>();
                            List<Run> batch;
                            do {
                                batch = queue().claim(worker, SHELL, 7, LEASE);
                                batch.forEach(r -> mine.add(r.id()));
                            } while (!batch.isEmpty());
                            return mine;
                        }));
                    }
                    List<String> a = claims.get(0).get();
                    List<String> b = claims.get(1).get();
                    // one claimer may take everything before the other's first claim: b (or a) can be empty
                    assertThat(a).as("runs both claimers took").noneMatch(new HashSet<>(b)::contains);
                    Set<String> union = new HashSet<>(a);
                    union.addAll(b);
                    assertThat(union).isEqualTo(all);
                    assertThat(a.size() + b.size()).isEqualTo(total);
                });
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Nested
    class NextDue {
        @Test
        void tellsHowLongUntilTheEarliestRunNotDueYetWhateverItsPriority() {
            Instant now = clock().instant();
            pendingRun(1, now.minusSeconds(5));
            pendingRun(9, now.plusSeconds(7));
            pendingRun(3, now.plusMillis(2_500));
            pendingRun(5, now.plusSeconds(4));

            assertThat(queue().nextDueIn(SHELL, QueueSelection.ALL)).contains(Duration.ofMillis(2_500));
        }

        @Test
        void isEmptyWhenEveryPendingRunIsDueAlready() {
            pendingRun(5, clock().instant().minusSeconds(1));
            pendingRun(5, clock().instant());

            assertThat(queue().nextDueIn(SHELL, QueueSelection.ALL)).isEmpty();
        }

        @Test
        void countsOnlyPendingRunsOfTheGivenExecutors() {
            Instant now = clock().instant();
            pendingRun(5, now.plusSeconds(1), "http", 3);
            pendingRun(5, now.plusSeconds(9));

            assertThat(queue().nextDueIn(SHELL, QueueSelection.ALL)).contains(Duration.ofSeconds(9));
            assertThat(queue().nextDueIn(Set.of("http"), QueueSelection.ALL)).contains(Duration.ofSeconds(1));
        }

        @Test
        void countsOnlyRunsOfTheSelectedQueues() {
            pendingRun(5, clock().instant().plusSeconds(3)); // in the job's queue, "default"

            assertThat(queue().nextDueIn(SHELL, QueueSelection.only(Set.of("default"))))
                    .contains(Duration.ofSeconds(3));
            assertThat(queue().nextDueIn(SHELL, QueueSelection.only(Set.of("reports")))).isEmpty();
            assertThat(queue().nextDueIn(SHELL, QueueSelection.allBut(Set.of("default")))).isEmpty();
        }
    }

    @Nested
    class Acknowledge {
        @Test
        void acknowledgementWithTheCurrentFenceFinishesTheRunAndItsAttemptRow() {
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);
            clock().advance(Duration.ofSeconds(3));

            Set<RunFence> applied = queue().acknowledge(List.of(success(fence(held))));

            assertThat(applied).containsExactly(fence(held));
            Run done = reload(held);
            assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(done.output()).isEqualTo("done");
            assertThat(done.finishedAt()).isEqualTo(clock().instant());
            assertThat(done.workerId()).as("reads keep the worker of the last attempt").isEqualTo(WORKER_A);
            assertThat(done.leaseExpiresAt()).isNull();
            assertThat(runs().attempts(held.id())).singleElement().satisfies(a -> {
                assertThat(a.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
                assertThat(a.finishedAt()).isEqualTo(clock().instant());
            });
        }

        @Test
        void acknowledgementFromAnotherWorkerChangesNothing() {
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);

            Set<RunFence> applied = queue().acknowledge(List.of(success(new RunFence(held.id(), WORKER_B, 1))));

            assertThat(applied).isEmpty();
            assertThat(reload(held)).isEqualTo(held);
            assertThat(runs().attempts(held.id())).singleElement().extracting(Attempt::outcome).isNull();
        }

        @Test
        void lateAcknowledgementOfAnEarlierAttemptOfTheSameWorkerChangesNothing() {
            pendingRun(5, clock().instant());
            Run first = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));
            assertThat(recoverAll(new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1)))).containsExactly(fence(first));
            assertThat(reload(first).status()).isEqualTo(RunStatus.PENDING);
            clock().advance(Duration.ofSeconds(1));
            assertThat(queue().claim(WORKER_A, SHELL, 1, LEASE)).as("a recovered holder is ended for good").isEmpty();
            String nextLife = WORKER_A + "#" + "a".repeat(32);    // the same process, as its next incarnation
            Run second = claimOne(nextLife);
            assertThat(second.attempt()).isEqualTo(2);
            RunFence secondFence = new RunFence(second.id(), nextLife, 2);

            Set<RunFence> stale = queue().acknowledge(List.of(success(fence(first))));

            assertThat(stale).isEmpty();
            assertThat(reload(second).status()).isEqualTo(RunStatus.RUNNING);
            assertThat(queue().acknowledge(List.of(success(secondFence)))).containsExactly(secondFence);
            assertThat(reload(second).status()).isEqualTo(RunStatus.SUCCEEDED);
        }

        @Test
        void aSecondAcknowledgementOfOneAttemptChangesNothing() {
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);
            queue().acknowledge(List.of(success(fence(held))));

            Acknowledgement again = new Acknowledgement(fence(held), AttemptOutcome.FAILED, RunStatus.DEAD, Duration.ZERO,
                    "", "boom");

            assertThat(queue().acknowledge(List.of(again))).isEmpty();
            assertThat(reload(held).status()).isEqualTo(RunStatus.SUCCEEDED);
        }

        @Test
        void aRetryGoesBackToPendingDueAfterItsDelay() {
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);
            Acknowledgement retry = new Acknowledgement(fence(held), AttemptOutcome.FAILED, RunStatus.PENDING,
                    Duration.ofSeconds(10), "out", "exit 1");

            queue().acknowledge(List.of(retry));

            Run pending = reload(held);
            assertThat(pending.status()).isEqualTo(RunStatus.PENDING);
            assertThat(pending.scheduledFor()).isEqualTo(clock().instant().plusSeconds(10));
            assertThat(pending.error()).isEqualTo("exit 1");
            assertThat(queue().claim(WORKER_A, SHELL, 10, LEASE)).isEmpty();
            clock().advance(Duration.ofSeconds(10));
            assertThat(claimOne(WORKER_B).attempt()).isEqualTo(2);
            assertThat(runs().attempts(held.id())).extracting(Attempt::outcome)
                    .containsExactly(AttemptOutcome.FAILED, null);
        }

        @Test
        void aSnoozeGoesBackToPendingLaterWithoutSpendingAnAttemptAndIsCounted() {
            pendingRun(5, clock().instant(), "shell", 1);
            Run held = claimOne(WORKER_A);
            Acknowledgement snooze = new Acknowledgement(fence(held), AttemptOutcome.SNOOZED, RunStatus.PENDING,
                    Duration.ofSeconds(30), "not ready", "snoozed for 30s");

            assertThat(queue().acknowledge(List.of(snooze))).containsExactly(fence(held));

            Run pending = reload(held);
            assertThat(pending.status()).isEqualTo(RunStatus.PENDING);
            assertThat(pending.scheduledFor()).isEqualTo(clock().instant().plusSeconds(30));
            assertThat(pending.snoozes()).isEqualTo(1);
            assertThat(pending.hasAttemptsLeft()).isTrue();
            assertThat(pending.maxAttempts()).isEqualTo(2);
            assertThat(queue().claim(WORKER_A, SHELL, 10, LEASE)).isEmpty();
            clock().advance(Duration.ofSeconds(30));
            Run again = claimOne(WORKER_B);
            queue().acknowledge(List.of(new Acknowledgement(fence(again), AttemptOutcome.GAVE_UP, RunStatus.CANCELLED,
                    Duration.ZERO, "", "gave up: order deleted")));
            Run cancelled = reload(held);
            assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(cancelled.error()).isEqualTo("gave up: order deleted");
            assertThat(cancelled.snoozes()).isEqualTo(1);
            assertThat(runs().attempts(held.id())).extracting(Attempt::outcome)
                    .containsExactly(AttemptOutcome.SNOOZED, AttemptOutcome.GAVE_UP);
            assertThat(runs().attempts(held.id())).extracting(Attempt::error)
                    .containsExactly("snoozed for 30s", "gave up: order deleted");
        }

        @Test
        void aOneOffJobCompletesWhenItsRunEndsButARecurringJobGoesOn() {
            Instant now = clock().instant();
            JobSpec oneOff = new JobSpec("once", "shell", Map.of(), null, null, "UTC", 5, 1, 60, CatchUp.SKIP, null);
            String jobId = Ids.newId(now);
            Run first = Run.pending(Ids.newId(now), jobId, 1, 5, now, "shell", Map.of(), 60, now);
            jobs().create(new Job(jobId, oneOff, JobStatus.ACTIVE, now, now, now), first);
            pendingRun(9, now);

            List<Run> held = queue().claim(WORKER_A, SHELL, 10, LEASE);
            List<Acknowledgement> dead = held.stream().map(r -> new Acknowledgement(fence(r), AttemptOutcome.FAILED,
                    RunStatus.DEAD, Duration.ZERO, "", "exit 2")).collect(Collectors.toList());
            queue().acknowledge(dead);

            assertThat(jobs().find(jobId).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
            assertThat(jobs().find(recurringJob().id()).orElseThrow().status()).isEqualTo(JobStatus.ACTIVE);
        }
    }

    @Nested
    class Leases {
        @Test
        void heartbeatExtendsOnlyTheWorkersOwnLeasesAndReportsCancellations() {
            pendingRun(5, clock().instant());
            pendingRun(5, clock().instant());
            Run mine = claimOne(WORKER_A);
            Run theirs = claimOne(WORKER_B);
            runs().requestCancel(mine.id());
            clock().advance(Duration.ofSeconds(20));

            RunQueue.Heartbeat beat = queue().heartbeat(WORKER_A, LEASE);

            assertThat(beat.extended()).containsExactly(fence(mine));
            assertThat(beat.cancelRequested()).containsExactly(mine.id());
            assertThat(queue().cancellationsFor(WORKER_A)).containsExactly(mine.id());
            assertThat(queue().cancellationsFor(WORKER_B)).isEmpty();
            assertThat(reload(mine).leaseExpiresAt()).isEqualTo(clock().instant().plus(LEASE));
            assertThat(reload(theirs).leaseExpiresAt()).isEqualTo(theirs.leaseExpiresAt());
        }

        @Test
        void heartbeatOfHeldAttemptsExtendsOnlyThoseAndReportsTheOthersRunningUnderTheWorker() {
            pendingRun(5, clock().instant());
            pendingRun(5, clock().instant());
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);
            Run lostReply = claimOne(WORKER_A);
            Run theirs = claimOne(WORKER_B);
            runs().requestCancel(held.id());
            runs().requestCancel(lostReply.id());
            clock().advance(Duration.ofSeconds(20));

            RunQueue.Heartbeat beat = queue().heartbeat(WORKER_A,
                    List.of(fence(held), new RunFence(lostReply.id(), WORKER_A, 7), fence(theirs)), LEASE);

            assertThat(beat.extended()).containsExactly(fence(held));
            assertThat(beat.cancelRequested()).containsExactly(held.id());
            assertThat(beat.unheld()).containsExactly(fence(lostReply));
            assertThat(reload(held).leaseExpiresAt()).isEqualTo(clock().instant().plus(LEASE));
            assertThat(reload(lostReply).leaseExpiresAt()).isEqualTo(lostReply.leaseExpiresAt());
            assertThat(reload(theirs).leaseExpiresAt()).isEqualTo(theirs.leaseExpiresAt());
        }

        @Test
        void heartbeatOfNothingHeldExtendsNothing() {
            pendingRun(5, clock().instant());
            Run lostReply = claimOne(WORKER_A);

            RunQueue.Heartbeat beat = queue().heartbeat(WORKER_A, List.of(), LEASE);

            assertThat(beat.extended()).isEmpty();
            assertThat(beat.unheld()).containsExactly(fence(lostReply));
            assertThat(queue().heartbeat(WORKER_B, List.of(), LEASE).unheld()).isEmpty();
        }

        @Test
        void releaseGivesTheRunBackDueNowWithoutSpendingAnAttempt() {
            pendingRun(5, clock().instant().minusSeconds(60), "shell", 1);
            Run held = claimOne(WORKER_A);

            assertThat(queue().release(List.of(fence(held), new RunFence(held.id(), WORKER_B, 1))))
                    .containsExactly(fence(held));

            Run released = reload(held);
            assertThat(released.status()).isEqualTo(RunStatus.PENDING);
            assertThat(released.scheduledFor()).isEqualTo(clock().instant());
            assertThat(released.hasAttemptsLeft()).isTrue();
            assertThat(runs().attempts(held.id())).singleElement().extracting(Attempt::outcome)
                    .isEqualTo(AttemptOutcome.RELEASED);
        }

        @Test
        void expiredLeasesGoBackToPendingOrDeadAndValidLeasesAreLeftAlone() {
            pendingRun(5, clock().instant(), "shell", 3);
            pendingRun(5, clock().instant(), "shell", 1);
            Run retried = null;
            Run exhausted = null;
            for (Run r : queue().claim(WORKER_A, SHELL, 10, LEASE)) {
                if (r.maxAttempts() == 3) {
                    retried = r;
                } else {
                    exhausted = r;
                }
            }
            clock().advance(Duration.ofSeconds(10));
            pendingRun(5, clock().instant());
            Run fresh = claimOne(WORKER_B);
            clock().advance(LEASE.minusSeconds(5));

            Set<RunFence> recovered = recoverAll(RetryPolicy.DEFAULT);

            assertThat(recovered).containsExactlyInAnyOrder(fence(retried), fence(exhausted));
            assertThat(reload(retried).status()).isEqualTo(RunStatus.PENDING);
            assertThat(reload(exhausted).status()).isEqualTo(RunStatus.DEAD);
            assertThat(reload(fresh).status()).isEqualTo(RunStatus.RUNNING);
            assertThat(runs().attempts(retried.id())).singleElement().extracting(Attempt::outcome)
                    .isEqualTo(AttemptOutcome.LEASE_EXPIRED);
            assertThat(queue().acknowledge(List.of(success(fence(retried))))).isEmpty();
        }
    }

    /** What the rescuer decides on, read and decided as {@code LeaseRescuer} does, then applied. */
    protected Set<RunFence> recoverAll(RetryPolicy retryPolicy) {
        io.forgeflow.application.run.OutcomePolicy policy = new io.forgeflow.application.run.OutcomePolicy(retryPolicy,
                new java.util.SplittableRandom(3));
        return queue().recover(queue().expiredLeases(100).stream().map(policy::afterExpiredLease).toList());
    }

    protected static Acknowledgement expired(RunFence fence, RunStatus next, Duration delay) {
        return new Acknowledgement(fence, AttemptOutcome.LEASE_EXPIRED, next, delay, null,
                "lease expired: worker " + fence.workerId() + " stopped heartbeating during attempt " + fence.attempt());
    }

    @Nested
    class RetryPolicies {
        final io.forgeflow.domain.backoff.RetryOverride own = new io.forgeflow.domain.backoff.RetryOverride(1, 2);

        /** A one-off job with retry {@code own}; its first run is given without one, as the store must copy it. */
        Job jobWithOwnRetry(Instant dueAt) {
            Instant now = clock().instant();
            JobSpec spec = new JobSpec("hook", "shell", Map.of("command", "true"), null, null, "UTC", 5, 3, 60,
                    CatchUp.SKIP, null, "default", null, null, io.forgeflow.domain.job.Overlap.ALLOW, null, own);
            String id = Ids.newId(now);
            return jobs().create(new Job(id, spec, JobStatus.ACTIVE, dueAt, now, now),
                    Run.pending(Ids.newId(now), id, 3, 5, dueAt, "shell", Map.of("command", "true"), 60, now)).job();
        }

        @Test
        void aJobsRetryPolicyIsStoredAndCopiedToEachOfItsRuns() {
            Job job = jobWithOwnRetry(clock().instant());
            Instant now = clock().instant();
            Run triggered = runs().insert(Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell",
                    Map.of("command", "true"), 60, now));

            assertThat(jobs().find(job.id()).orElseThrow().spec().retry()).isEqualTo(own);
            assertThat(reload(triggered).retry()).isEqualTo(own);
            assertThat(queue().claim(WORKER_A, SHELL, 10, LEASE)).hasSize(2).allSatisfy(r ->
                    assertThat(r.retry()).isEqualTo(own));
            assertThat(reload(pendingRun(5, clock().instant().plusSeconds(60))).retry())
                    .as("a job without a policy of its own").isNull();
        }

        @Test
        void theRescuerRetriesAnExpiredLeaseWithinTheRunsOwnBounds() {
            jobWithOwnRetry(clock().instant());
            Run held = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));

            assertThat(queue().expiredLeases(10)).singleElement().satisfies(l -> assertThat(l.retry()).isEqualTo(own));
            assertThat(recoverAll(RetryPolicy.DEFAULT)).containsExactly(fence(held));

            Run back = reload(held);
            assertThat(back.status()).isEqualTo(RunStatus.PENDING);
            assertThat(back.retry()).isEqualTo(own);
            // attempt 1: within [now, now + min(max 2 s, base 1 s)], not the node's 5 s
            assertThat(back.scheduledFor()).isBetween(clock().instant(), clock().instant().plusSeconds(1));
        }

        @Test
        void aPatchMovesThePendingRunsPolicyUnlessTheyKeepTheirs() {
            Job job = jobWithOwnRetry(clock().instant().plusSeconds(60));
            Run pending = runs().list(job.id(), RunStatus.PENDING, 10, null).items().get(0);
            JobSpec s = job.spec();
            io.forgeflow.domain.backoff.RetryOverride slower = new io.forgeflow.domain.backoff.RetryOverride(30, 600);
            JobSpec changed = new JobSpec(s.name(), s.executor(), s.payload(), s.cronExpr(), s.runAt(), s.timezone(),
                    s.priority(), s.maxAttempts(), s.timeoutSeconds(), s.catchUp(), s.idempotencyKey(), s.queue(),
                    s.concurrencyKey(), s.maxConcurrent(), s.overlap(), s.uniqueKey(), slower);

            Job kept = jobs().update(job.id(), job.updatedAt(), changed, job.nextRunAt(), JobRepository.PendingRuns.KEEP,
                    null).orElseThrow();
            assertThat(kept.spec().retry()).isEqualTo(slower);
            assertThat(reload(pending).retry()).isEqualTo(own);

            JobSpec followed = new JobSpec(s.name(), s.executor(), s.payload(), s.cronExpr(), s.runAt(), s.timezone(),
                    s.priority(), s.maxAttempts(), s.timeoutSeconds(), s.catchUp(), s.idempotencyKey(), s.queue(),
                    s.concurrencyKey(), s.maxConcurrent(), s.overlap(), s.uniqueKey(), slower);
            jobs().update(job.id(), kept.updatedAt(), followed, job.nextRunAt(), JobRepository.PendingRuns.FOLLOW, null)
                    .orElseThrow();
            assertThat(reload(pending).retry()).isEqualTo(slower);
        }
    }

    @Nested
    class LeaseRecovery {
        @Test
        void expiredLeasesAreRunningRunsWhoseLeaseEndedOldestFirstWithWhatTheRescuerDecidesOn() {
            pendingRun(5, clock().instant(), "shell", 4);
            Run older = claimOne(WORKER_A);
            clock().advance(Duration.ofSeconds(5));
            pendingRun(5, clock().instant(), "shell", 2);
            Run newer = claimOne(WORKER_B);
            runs().requestCancel(newer.id());
            clock().advance(Duration.ofSeconds(10));
            pendingRun(5, clock().instant());
            claimOne(WORKER_A);                                  // its lease ends 10 s after the others'
            pendingRun(5, clock().instant().minusSeconds(300)); // pending: no lease at all
            clock().advance(LEASE.minusSeconds(9));

            List<io.forgeflow.domain.port.ExpiredLease> expired = queue().expiredLeases(10);

            assertThat(expired).containsExactly(
                    new io.forgeflow.domain.port.ExpiredLease(fence(older), recurringJob().id(), 4, false),
                    new io.forgeflow.domain.port.ExpiredLease(fence(newer), recurringJob().id(), 2, true));
            assertThat(queue().expiredLeases(1)).extracting(io.forgeflow.domain.port.ExpiredLease::fence)
                    .containsExactly(fence(older));
            assertThat(reload(older).status()).as("reading changes nothing").isEqualTo(RunStatus.RUNNING);
        }

        @Test
        void aLeaseThatEndsNowIsNotExpiredYet() {
            pendingRun(5, clock().instant());
            claimOne(WORKER_A);
            clock().advance(LEASE);

            assertThat(queue().expiredLeases(10)).isEmpty();
        }

        @Test
        void aRecoveryToPendingIsDueAfterItsDelayWithTheAttemptCountedAndRecordedAsLeaseExpired() {
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));

            assertThat(queue().recover(List.of(expired(fence(held), RunStatus.PENDING, Duration.ofSeconds(7)))))
                    .containsExactly(fence(held));

            Run back = reload(held);
            assertThat(back.status()).isEqualTo(RunStatus.PENDING);
            assertThat(back.scheduledFor()).isEqualTo(clock().instant().plusSeconds(7));
            assertThat(back.workerId()).as("a run waiting for its retry shows its last attempt's worker")
                    .isEqualTo(WORKER_A);
            assertThat(back.leaseExpiresAt()).isNull();
            assertThat(back.finishedAt()).isNull();
            assertThat(back.attempt()).isEqualTo(1);
            assertThat(back.maxAttempts()).as("the lost attempt counts").isEqualTo(held.maxAttempts());
            assertThat(back.error()).isEqualTo("lease expired: worker worker-a stopped heartbeating during attempt 1");
            assertThat(runs().attempts(held.id())).singleElement().satisfies(a -> {
                assertThat(a.outcome()).isEqualTo(AttemptOutcome.LEASE_EXPIRED);
                assertThat(a.workerId()).isEqualTo(WORKER_A);
                assertThat(a.finishedAt()).isEqualTo(clock().instant());
                assertThat(a.error()).isEqualTo(back.error());
            });
        }

        @Test
        void aRecoveryToDeadOrCancelledEndsTheRunAndCompletesItsOneOffJob() {
            Instant now = clock().instant();
            JobSpec oneOff = new JobSpec("once", "shell", Map.of(), null, null, "UTC", 5, 1, 60, CatchUp.SKIP, null);
            String deadJob = Ids.newId(now);
            jobs().create(new Job(deadJob, oneOff, JobStatus.ACTIVE, now, now, now),
                    Run.pending(Ids.newId(now), deadJob, 1, 5, now, "shell", Map.of(), 60, now));
            String cancelledJob = Ids.newId(now);
            jobs().create(new Job(cancelledJob, oneOff, JobStatus.ACTIVE, now, now, now),
                    Run.pending(Ids.newId(now), cancelledJob, 1, 5, now, "shell", Map.of(), 60, now));
            List<Run> held = queue().claim(WORKER_A, SHELL, 10, LEASE);
            Run dead = held.stream().filter(r -> r.jobId().equals(deadJob)).findFirst().orElseThrow();
            Run cancelled = held.stream().filter(r -> r.jobId().equals(cancelledJob)).findFirst().orElseThrow();
            runs().requestCancel(cancelled.id());
            clock().advance(LEASE.plusSeconds(1));

            assertThat(queue().recover(List.of(expired(fence(dead), RunStatus.DEAD, Duration.ZERO),
                    expired(fence(cancelled), RunStatus.CANCELLED, Duration.ZERO))))
                    .containsExactlyInAnyOrder(fence(dead), fence(cancelled));

            assertThat(reload(dead).status()).isEqualTo(RunStatus.DEAD);
            assertThat(reload(dead).finishedAt()).isEqualTo(clock().instant());
            assertThat(reload(cancelled).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(reload(cancelled).cancelRequested()).isFalse();
            assertThat(runs().attempts(cancelled.id())).extracting(Attempt::outcome)
                    .containsExactly(AttemptOutcome.LEASE_EXPIRED);
            assertThat(jobs().find(deadJob).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
            assertThat(jobs().find(cancelledJob).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
        }

        @Test
        void aLeaseAHeartbeatExtendedAfterItWasReadIsNotRecovered() {
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));
            assertThat(queue().expiredLeases(10)).hasSize(1);
            queue().heartbeat(WORKER_A, List.of(fence(held)), LEASE);    // the worker came back meanwhile

            assertThat(queue().recover(List.of(expired(fence(held), RunStatus.PENDING, Duration.ZERO)))).isEmpty();

            assertThat(reload(held).status()).isEqualTo(RunStatus.RUNNING);
            assertThat(reload(held).leaseExpiresAt()).isEqualTo(clock().instant().plus(LEASE));
            assertThat(runs().attempts(held.id())).singleElement().extracting(Attempt::outcome).isNull();
        }

        @Test
        void anAttemptThatEndedOrWasClaimedAgainAfterItWasReadIsNotRecovered() {
            pendingRun(5, clock().instant());
            pendingRun(5, clock().instant());
            Run acked = claimOne(WORKER_A);
            Run reclaimed = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));
            List<Acknowledgement> decisions = List.of(expired(fence(acked), RunStatus.PENDING, Duration.ZERO),
                    expired(fence(reclaimed), RunStatus.PENDING, Duration.ZERO));
            queue().acknowledge(List.of(success(fence(acked))));
            queue().recover(List.of(decisions.get(1)));
            Run again = claimOne(WORKER_B);

            assertThat(queue().recover(decisions)).isEmpty();

            assertThat(reload(acked).status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(reload(again).status()).isEqualTo(RunStatus.RUNNING);
            assertThat(reload(again).workerId()).isEqualTo(WORKER_B);
        }

        @Test
        void aRecoveryKeepsTheOutputTheRunHad() {
            pendingRun(5, clock().instant());
            Run first = claimOne(WORKER_A);
            queue().acknowledge(List.of(new Acknowledgement(fence(first), AttemptOutcome.FAILED, RunStatus.PENDING,
                    Duration.ZERO, "partial", "exit 1")));
            Run second = claimOne(WORKER_B);
            String before = reload(second).output();
            clock().advance(LEASE.plusSeconds(1));

            queue().recover(List.of(expired(fence(second), RunStatus.PENDING, Duration.ZERO)));

            assertThat(reload(second).output()).isEqualTo(before);
        }

        @Test
        void onlyLeaseExpiredDecisionsAreRecoveries() {
            pendingRun(5, clock().instant());
            Run held = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));

            org.assertj.core.api.Assertions.assertThatThrownBy(() -> queue().recover(List.of(success(fence(held)))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease_expired");
            assertThat(reload(held).status()).isEqualTo(RunStatus.RUNNING);
        }
    }

    /**
     * pause_after_failures (issue 45): a recurring job with the control counts its dead runs in a row as they end,
     * through acknowledgements and lease recoveries, a run at a time or in a batch; a success ends the streak, a
     * resume starts it again; at the control the job is paused by the scheduler with a note. Jobs without the control
     * are not written when their runs end.
     */
    @Nested
    class PauseAfterFailures {
        Job controlled(int after) {
            Instant now = clock().instant();
            JobSpec spec = new JobSpec("flaky", "shell", Map.of("command", "false"), "*/5 * * * *", null, "UTC", 5, 1,
                    60, CatchUp.SKIP, null).withSchedule(
                    new io.forgeflow.domain.job.ScheduleControls(null, null, null, 0, after));
            return jobs().create(new Job(Ids.newId(now), spec, JobStatus.ACTIVE, now.plusSeconds(300), now, now),
                    null).job();
        }

        /** Claims and ends n runs of the job in one acknowledgement, dead or succeeded. */
        void end(Job job, int n, boolean dead) {
            Instant now = clock().instant();
            for (int i = 0; i < n; i++) {
                runs().insert(Run.pending(Ids.newId(now), job.id(), 1, 5, now, "shell", Map.of(), 60, now));
            }
            List<Run> held = queue().claim(WORKER_A, SHELL, n, LEASE);
            assertThat(held).hasSize(n);
            assertThat(queue().acknowledge(held.stream().map(r -> dead
                    ? new Acknowledgement(fence(r), AttemptOutcome.FAILED, RunStatus.DEAD, Duration.ZERO, null, "boom")
                    : success(fence(r))).toList())).hasSize(n);
            clock().advance(Duration.ofSeconds(1));
        }

        Job reloaded(Job job) {
            return jobs().find(job.id()).orElseThrow();
        }

        @Test
        void theThirdDeadRunInARowPausesTheJobWithTheSchedulersNote() {
            Job job = controlled(3);
            end(job, 1, true);
            end(job, 1, true);
            assertThat(reloaded(job).status()).isEqualTo(JobStatus.ACTIVE);

            end(job, 1, true);

            Job paused = reloaded(job);
            assertThat(paused.status()).isEqualTo(JobStatus.PAUSED);
            assertThat(paused.nextRunAt()).isNull();
            assertThat(paused.schedule().pausedBy()).isEqualTo(io.forgeflow.domain.job.ScheduleState.SCHEDULER);
            assertThat(paused.schedule().pausedNote())
                    .isEqualTo(io.forgeflow.domain.job.ScheduleState.failurePauseNote(3))
                    .contains("3 dead runs in a row");
        }

        @Test
        void aSuccessEndsTheStreak() {
            Job job = controlled(3);
            end(job, 2, true);
            end(job, 1, false);
            end(job, 2, true);

            assertThat(reloaded(job).status()).isEqualTo(JobStatus.ACTIVE);
            end(job, 1, true);
            assertThat(reloaded(job).status()).isEqualTo(JobStatus.PAUSED);
        }

        @Test
        void deadRunsInOneLargeBatchCountEach() {
            Job job = controlled(20);
            end(job, 19, true);
            assertThat(reloaded(job).status()).isEqualTo(JobStatus.ACTIVE);

            end(job, 20, true);

            assertThat(reloaded(job).status()).isEqualTo(JobStatus.PAUSED);
        }

        @Test
        void aRunThatDiesWithItsLeaseCounts() {
            Job job = controlled(1);
            Instant now = clock().instant();
            runs().insert(Run.pending(Ids.newId(now), job.id(), 1, 5, now, "shell", Map.of(), 60, now));
            Run held = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));

            assertThat(queue().recover(List.of(expired(fence(held), RunStatus.DEAD, Duration.ZERO)))).hasSize(1);

            assertThat(reloaded(job).status()).isEqualTo(JobStatus.PAUSED);
            assertThat(reloaded(job).schedule().pausedNote()).contains("after 1 dead run (");
        }

        @Test
        void aResumedJobCountsAgainFromNothing() {
            Job job = controlled(2);
            end(job, 2, true);
            assertThat(reloaded(job).status()).isEqualTo(JobStatus.PAUSED);
            assertThat(jobs().changeStatus(job.id(), JobStatus.PAUSED, JobStatus.ACTIVE,
                    clock().instant().plusSeconds(300), JobRepository.RunCancellation.NONE, null)).isPresent();

            end(job, 1, true);

            assertThat(reloaded(job).status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(reloaded(job).schedule().pausedNote()).isNull();
        }

        /** The job shows its streak so far (dead_streak in the API): "2 of 3 dead in a row" before the pause. */
        @Test
        void theJobShowsItsDeadRunsInARowSoFar() {
            Job job = controlled(3);
            assertThat(reloaded(job).schedule().deadStreak()).isZero();
            end(job, 2, true);
            assertThat(reloaded(job).schedule().deadStreak()).isEqualTo(2);
            assertThat(jobs().listForDisplayMatching(io.forgeflow.domain.port.JobFilter.ALL, 100, null,
                    io.forgeflow.domain.port.ListBudget.DEFAULT).items().stream().map(l -> l.job())
                    .filter(j -> j.id().equals(job.id())).findFirst().orElseThrow().schedule().deadStreak())
                    .as("in lists too").isEqualTo(2);
            end(job, 1, false);
            assertThat(reloaded(job).schedule().deadStreak()).as("a success ends the streak").isZero();
            end(job, 17, true);
            assertThat(reloaded(job).schedule().deadStreak()).as("a large batch counts each").isEqualTo(17);
            assertThat(reloaded(job).status()).isEqualTo(JobStatus.PAUSED);
            assertThat(jobs().changeStatus(job.id(), JobStatus.PAUSED, JobStatus.ACTIVE,
                    clock().instant().plusSeconds(300), JobRepository.RunCancellation.NONE, null)).isPresent();
            assertThat(reloaded(job).schedule().deadStreak()).as("a resume starts again").isZero();
        }

        @Test
        void aJobWithoutTheControlIsNotWrittenWhenItsRunsEnd() {
            Job job = recurringJob();
            Instant before = reloaded(job).updatedAt();
            Instant now = clock().instant();
            for (int i = 0; i < 3; i++) {
                runs().insert(Run.pending(Ids.newId(now), job.id(), 1, 5, now, "shell", Map.of(), 60, now));
            }
            List<Run> held = queue().claim(WORKER_A, SHELL, 3, LEASE);
            clock().advance(Duration.ofSeconds(5));
            queue().acknowledge(held.stream().map(r -> new Acknowledgement(fence(r), AttemptOutcome.FAILED,
                    RunStatus.DEAD, Duration.ZERO, null, "boom")).toList());

            assertThat(reloaded(job).status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(reloaded(job).updatedAt()).isEqualTo(before);
        }
    }

    /**
     * Notices (issue 45): where a run ends, in its transaction, a job whose notify asks for the event gets a notice
     * in the outbox: dead, paused (by pause_after_failures, after the dead run that paused it), recovered (the first
     * success after dead runs, a resume between them or not); an operator's pause writes paused with its note. A run at
     * a time or 16 and more in one batch; jobs without notify write nothing.
     */
    @Nested
    class Notices {
        Job withNotify(String cron, Integer pauseAfter, String... on) {
            Instant now = clock().instant();
            JobSpec spec = new JobSpec("watched", "shell", Map.of("command", "false"), cron, null, "UTC", 5, 1,
                    60, CatchUp.SKIP, null);
            if (pauseAfter != null) {
                spec = spec.withSchedule(new io.forgeflow.domain.job.ScheduleControls(null, null, null, 0, pauseAfter));
            }
            spec = spec.withNotify(new io.forgeflow.domain.job.Notify("https://hooks.example.com/ff",
                    on.length == 0 ? null : List.of(on)).validate());
            return jobs().create(new Job(Ids.newId(now), spec, JobStatus.ACTIVE,
                    cron == null ? now : now.plusSeconds(300), now, now), null).job();
        }

        /** Claims and ends n runs of the job in one acknowledgement, dead or succeeded; returns them. */
        List<Run> end(Job job, int n, boolean dead) {
            Instant now = clock().instant();
            for (int i = 0; i < n; i++) {
                runs().insert(Run.pending(Ids.newId(now), job.id(), 1, 5, now, "shell", Map.of(), 60, now));
            }
            List<Run> held = queue().claim(WORKER_A, SHELL, n, LEASE);
            assertThat(held).hasSize(n);
            assertThat(queue().acknowledge(held.stream().map(r -> dead
                    ? new Acknowledgement(fence(r), AttemptOutcome.FAILED, RunStatus.DEAD, Duration.ZERO, null,
                    "boom " + r.id())
                    : success(fence(r))).toList())).hasSize(n);
            clock().advance(Duration.ofSeconds(1));
            return held;
        }

        List<String> events() {
            return notices().pending(1000).stream().map(io.forgeflow.domain.job.Notice::event).toList();
        }

        @Test
        void aDeadRunWritesOneDeadNoticeWithItsRunAndError() {
            Job job = withNotify("*/5 * * * *", null, "dead");

            Run died = end(job, 1, true).get(0);

            assertThat(notices().pending(10)).singleElement().satisfies(n -> {
                assertThat(n.event()).isEqualTo("dead");
                assertThat(n.jobId()).isEqualToIgnoringCase(job.id());
                assertThat(n.jobName()).isEqualTo("watched");
                assertThat(n.url()).isEqualTo("https://hooks.example.com/ff");
                assertThat(n.runId()).isEqualToIgnoringCase(died.id());
                assertThat(n.attempt()).isEqualTo(1);
                assertThat(n.error()).isEqualTo("boom " + died.id());
                assertThat(n.note()).isNull();
            });
        }

        @Test
        void eventsTheNotifyDoesNotAskForAndJobsWithoutNotifyWriteNothing() {
            Job pausesOnly = withNotify("*/5 * * * *", null, "paused");
            end(pausesOnly, 2, true);
            end(pausesOnly, 1, false);
            Job oneOff = withNotify(null, null, "recovered");
            end(oneOff, 1, false);
            end(recurringJob(), 3, true);

            assertThat(notices().pending(10)).isEmpty();
        }

        @Test
        void theThirdDeadRunInARowWritesDeadThreeTimesThenPausedWithTheSchedulersNote() {
            Job job = withNotify("*/5 * * * *", 3);
            end(job, 1, true);
            end(job, 1, true);
            Run last = end(job, 1, true).get(0);

            assertThat(events()).containsExactly("dead", "dead", "dead", "paused");
            io.forgeflow.domain.job.Notice paused = notices().pending(10).get(3);
            assertThat(paused.note()).isEqualTo(io.forgeflow.domain.job.ScheduleState.failurePauseNote(3));
            assertThat(paused.runId()).isEqualToIgnoringCase(last.id());
        }

        @Test
        void aBatchOfSixteenOrMoreWritesADeadNoticePerRunThenOnePaused() {
            Job job = withNotify("*/5 * * * *", 20);

            List<Run> died = end(job, 20, true);

            assertThat(events()).hasSize(21).endsWith("paused").containsOnly("dead", "paused");
            assertThat(notices().pending(30).subList(0, 20)).extracting(n -> n.runId().toLowerCase())
                    .containsExactlyInAnyOrderElementsOf(died.stream().map(r -> r.id().toLowerCase()).toList());
        }

        @Test
        void theFirstSuccessAfterDeadRunsWritesRecoveredOnceEvenAfterAResume() {
            Job job = withNotify("*/5 * * * *", 2);
            end(job, 2, true);
            assertThat(jobs().find(job.id()).orElseThrow().status()).isEqualTo(JobStatus.PAUSED);
            assertThat(jobs().changeStatus(job.id(), JobStatus.PAUSED, JobStatus.ACTIVE,
                    clock().instant().plusSeconds(300), JobRepository.RunCancellation.NONE, null)).isPresent();

            Run succeeded = end(job, 1, false).get(0);
            end(job, 1, false);

            assertThat(events()).containsExactly("dead", "dead", "paused", "recovered");
            assertThat(notices().pending(10).get(3).runId()).isEqualToIgnoringCase(succeeded.id());
        }

        @Test
        void aBatchWithASuccessAfterDeadRunsWritesRecovered() {
            Job job = withNotify("*/5 * * * *", null, "recovered");
            end(job, 1, true);

            end(job, 16, false);

            assertThat(events()).containsExactly("recovered");
        }

        @Test
        void aOneOffJobWhoseRunDiesWithItsLeaseWritesDead() {
            Job job = withNotify(null, null);
            Instant now = clock().instant();
            runs().insert(Run.pending(Ids.newId(now), job.id(), 1, 5, now, "shell", Map.of(), 60, now));
            Run held = claimOne(WORKER_A);
            clock().advance(LEASE.plusSeconds(1));

            assertThat(queue().recover(List.of(expired(fence(held), RunStatus.DEAD, Duration.ZERO)))).hasSize(1);

            assertThat(events()).containsExactly("dead");
            assertThat(jobs().find(job.id()).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
        }

        @Test
        void anOperatorsPauseWritesPausedWithItsNoteAndANewNoteWritesNoSecond() {
            Job job = withNotify("*/5 * * * *", null);

            assertThat(jobs().pause(job.id(), JobStatus.ACTIVE, "vendor down", "alice")).isPresent();
            assertThat(jobs().pause(job.id(), JobStatus.PAUSED, "vendor still down", "alice")).isPresent();

            assertThat(notices().pending(10)).singleElement().satisfies(n -> {
                assertThat(n.event()).isEqualTo("paused");
                assertThat(n.note()).isEqualTo("vendor down");
                assertThat(n.runId()).isNull();
                assertThat(n.attempt()).isNull();
            });
        }

        @Test
        void drainRemovesWhatWasSentAndNothingWhenASendFails() {
            Job job = withNotify("*/5 * * * *", null, "dead");
            end(job, 3, true);
            List<io.forgeflow.domain.job.Notice> all = notices().pending(10);

            org.assertj.core.api.Assertions.assertThatThrownBy(() -> notices().drain(10, n -> {
                throw new IllegalStateException("database down");
            })).isInstanceOf(IllegalStateException.class);
            assertThat(notices().pending(10)).hasSize(3);

            assertThat(notices().drain(2, n -> !n.equals(all.get(0)))).isEqualTo(1);
            assertThat(notices().pending(10)).containsExactly(all.get(0), all.get(2));
            assertThat(notices().drain(10, n -> true)).isEqualTo(2);
            assertThat(notices().pending(10)).isEmpty();
        }
    }
}
