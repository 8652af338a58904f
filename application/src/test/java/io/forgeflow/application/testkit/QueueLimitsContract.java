package io.forgeflow.application.testkit;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ClaimHint;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * What every {@link RunQueue} and {@link QueueRepository} do about named queues, seeded and observed only through the
 * ports (an adapter's test extends it too): claims honour the pause switch, {@code max_running}, concurrency keys
 * (the smallest {@code max_concurrent} among a key's live runs wins), sliding-window rate limits and the claimer's
 * {@link QueueSelection}; runs held back stay pending without using an attempt; a running run whose lease expired no
 * longer counts. "Now" is {@link #clock()}, the database clock of the implementation under test.
 */
public abstract class QueueLimitsContract {
    protected static final String WORKER_A = "worker-a";
    protected static final String WORKER_B = "worker-b";
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Set<String> SHELL = Set.of("shell");

    protected abstract MutableClock clock();

    protected abstract JobRepository jobs();

    protected abstract RunRepository runs();

    protected abstract RunQueue queue();

    protected abstract QueueRepository queues();

    // ---------------------------------------------------------------- seeding and observing through the ports

    /** A recurring job (it never completes) in {@code queue}, with this concurrency key and limit (both may be null). */
    protected Job job(String queue, String key, Integer maxConcurrent) {
        return job(queue, key, maxConcurrent, "*/5 * * * *");
    }

    protected Job job(String queue, String key, Integer maxConcurrent, String cronExpr) {
        Instant now = clock().instant();
        JobSpec spec = new JobSpec("queued", "shell", Map.of("command", "true"), cronExpr, null, "UTC", 5, 3, 60,
                CatchUp.SKIP, null, queue, key, maxConcurrent, Overlap.ALLOW);
        return jobs().create(new Job(Ids.newId(now), spec, JobStatus.ACTIVE,
                cronExpr == null ? now : now.plusSeconds(300), now, now), null).job();
    }

    /** A run of the job, due a second ago. */
    protected Run due(Job job) {
        return due(job, 5, clock().instant().minusSeconds(1));
    }

    protected Run due(Job job, int priority, Instant dueAt) {
        Instant now = clock().instant();
        return runs().insert(Run.pending(Ids.newId(now), job.id(), 3, priority, dueAt, "shell",
                Map.of("command", "true"), 60, now));
    }

    protected List<Run> dueRuns(Job job, int n) {
        List<Run> made = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            made.add(due(job));
        }
        return made;
    }

    protected List<Run> claim(String worker, int limit) {
        return claim(worker, QueueSelection.ALL, limit);
    }

    protected List<Run> claim(String worker, QueueSelection selection, int limit) {
        return queue().claim(worker, SHELL, selection, limit, LEASE);
    }

    protected void succeed(Run running) {
        Set<RunFence> applied = queue().acknowledge(List.of(new Acknowledgement(
                new RunFence(running.id(), running.workerId(), running.attempt()), AttemptOutcome.SUCCEEDED,
                RunStatus.SUCCEEDED, Duration.ZERO, "done", null)));
        assertThat(applied).as("acknowledgement of %s applied", running.id()).hasSize(1);
    }

    protected Run reload(Run run) {
        return runs().find(run.id()).orElseThrow();
    }

    protected QueueInfo configure(String queue, Integer maxRunning, RateLimit rate) {
        return queues().configure("default", queue, true, true, new QueueLimits(maxRunning, rate));
    }

    protected long runningIn(List<Run> runs) {
        return runs.stream().map(this::reload).filter(r -> r.status() == RunStatus.RUNNING).count();
    }

    /** The run is still pending and has used no attempt. */
    protected void assertUntouched(Run run) {
        Run now = reload(run);
        assertThat(now.status()).as("status of held-back run %s", run.id()).isEqualTo(RunStatus.PENDING);
        assertThat(now.attempt()).as("attempts used by held-back run %s", run.id()).isZero();
        assertThat(runs().attempts(run.id())).as("attempt rows of held-back run %s", run.id()).isEmpty();
    }

    /** A recurring job of {@code tenant} in {@code queue}. */
    protected Job tenantJob(String tenant, String queue) {
        Instant now = clock().instant();
        JobSpec spec = new JobSpec("queued", "shell", Map.of("command", "true"), "*/5 * * * *", null, "UTC", 5, 3, 60,
                CatchUp.SKIP, null, queue, null, null, Overlap.ALLOW);
        Job job = new Job(Ids.newId(now), spec, JobStatus.ACTIVE, now.plusSeconds(300), now, now,
                Job.VIA_REST, null, io.forgeflow.domain.job.ScheduleState.NONE, tenant);
        return jobs().create(job, null).job();
    }

    /** A run of a tenant's job, due a second ago. */
    protected Run dueIn(Job job) {
        Instant now = clock().instant();
        return runs().insert(Run.pending(Ids.newId(now), job.id(), 3, 5, now.minusSeconds(1), "shell",
                Map.of("command", "true"), 60, now).inTenant(job.tenant()));
    }

    /** Claims until a claim finds nothing (one claim may serve one tenant's guarded runs only). */
    protected void claimUntilNone() {
        for (int i = 0; i < 10 && !claim(WORKER_A, 10).isEmpty(); i++) {
            // the next claim serves the next tenant
        }
    }

    // ---------------------------------------------------------------- a tenant's queues (README "Tenants")

    @Nested
    class TenantsQueues {
        @Test
        void aQueuesLimitHoldsForItsTenantsRunsAndNotForAnotherTenantsQueueOfTheSameName() {
            Job acme = tenantJob("acme", "reports");
            Job beta = tenantJob("beta", "reports");
            List<Run> acmeRuns = List.of(dueIn(acme), dueIn(acme), dueIn(acme));
            List<Run> betaRuns = List.of(dueIn(beta), dueIn(beta), dueIn(beta));
            queues().configure("acme", "reports", true, false, new QueueLimits(1, null));

            claimUntilNone();

            assertThat(runningIn(acmeRuns)).as("acme's reports: max_running 1").isEqualTo(1);
            assertThat(runningIn(betaRuns)).as("beta's reports: no limit of its own").isEqualTo(3);
            assertThat(queues().get("acme", "reports").running()).isEqualTo(1);
            assertThat(queues().get("acme", "reports").limits().maxRunning()).isEqualTo(1);
            assertThat(queues().get("beta", "reports").running()).isEqualTo(3);
            assertThat(queues().get("beta", "reports").limits()).isEqualTo(QueueLimits.NONE);
            assertThat(queues().get("default", "reports").limits()).isEqualTo(QueueLimits.NONE);
        }

        @Test
        void aPausedQueueHoldsItsTenantsRunsOnlyAndTheListsSayWhoseItIs() {
            Job acme = tenantJob("acme", "reports");
            Job own = job("reports", null, null);
            Run acmeRun = dueIn(acme);
            Run ownRun = due(own);
            queues().setPaused("acme", "reports", true);

            List<Run> claimed = claim(WORKER_A, 10);

            assertThat(claimed).extracting(Run::id).containsExactly(ownRun.id());
            assertUntouched(acmeRun);
            assertThat(queues().list("acme")).extracting(QueueInfo::tenant, QueueInfo::name, QueueInfo::paused)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("acme", "default", false),
                            org.assertj.core.groups.Tuple.tuple("acme", "reports", true));
            assertThat(queues().list(null)).extracting(QueueInfo::tenant, QueueInfo::name)
                    .contains(org.assertj.core.groups.Tuple.tuple("acme", "reports"),
                            org.assertj.core.groups.Tuple.tuple("default", "reports"),
                            org.assertj.core.groups.Tuple.tuple("default", "default"));
            assertThat(queues().get("default", "reports").paused()).isFalse();

            queues().setPaused("acme", "reports", false);
            assertThat(claim(WORKER_A, 10)).extracting(Run::id).containsExactly(acmeRun.id());
        }

        @Test
        void aTenantsRateLimitCountsItsOwnStarts() {
            Job acme = tenantJob("acme", "mail");
            Job beta = tenantJob("beta", "mail");
            queues().configure("acme", "mail", false, true, new QueueLimits(null, new RateLimit(2, 60)));
            queues().configure("beta", "mail", false, true, new QueueLimits(null, new RateLimit(2, 60)));
            List<Run> acmeRuns = List.of(dueIn(acme), dueIn(acme), dueIn(acme));
            List<Run> betaRuns = List.of(dueIn(beta), dueIn(beta), dueIn(beta));

            claimUntilNone();

            assertThat(runningIn(acmeRuns)).isEqualTo(2);
            assertThat(runningIn(betaRuns)).as("acme's starts leave beta's window alone").isEqualTo(2);
            assertThat(queues().get("acme", "mail").startsInWindow()).isEqualTo(2);
            assertThat(queues().get("beta", "mail").startsInWindow()).isEqualTo(2);
        }
    }

    // ---------------------------------------------------------------- the pause switch

    @Nested
    class Pause {
        @Test
        void runsOfAPausedQueueStayPendingWithoutUsingAnAttemptWhileOtherQueuesAreClaimed() {
            Run report = due(job("reports", null, null));
            Run other = due(job("default", null, null));
            queues().setPaused("default", "reports", true);

            List<Run> claimed = claim(WORKER_A, 10);

            assertThat(claimed).extracting(Run::id).containsExactly(other.id());
            assertUntouched(report);
        }

        @Test
        void aResumedQueueIsClaimedAtTheNextClaim() {
            Run report = due(job("reports", null, null));
            queues().setPaused("default", "reports", true);
            assertThat(claim(WORKER_A, 10)).isEmpty();

            queues().setPaused("default", "reports", false);

            assertThat(claim(WORKER_A, 10)).extracting(Run::id).containsExactly(report.id());
        }

        @Test
        void aPausedQueueHoldsBackKeyedRunsAndIsNotTakenEvenWhenSelectedByName() {
            Run keyed = due(job("reports", "billing", 5));
            Run plain = due(job("reports", null, null));
            queues().setPaused("default", "reports", true);

            assertThat(claim(WORKER_A, QueueSelection.only(Set.of("reports")), 10)).isEmpty();

            assertUntouched(keyed);
            assertUntouched(plain);
        }

        @Test
        void pausingAQueueLeavesItsRunningRunsAlone() {
            Job reports = job("reports", null, null);
            due(reports);
            Run running = claim(WORKER_A, 1).get(0);

            queues().setPaused("default", "reports", true);

            assertThat(reload(running).status()).isEqualTo(RunStatus.RUNNING);
            succeed(running);
            assertThat(reload(running).status()).isEqualTo(RunStatus.SUCCEEDED);
        }
    }

    // ---------------------------------------------------------------- max_running

    @Nested
    class MaxRunning {
        @Test
        void noMoreThanMaxRunningOfAQueueRunAtOnceWhateverTheClaimersAsk() {
            List<Run> reports = dueRuns(job("reports", null, null), 5);
            configure("reports", 2, null);

            List<Run> first = claim(WORKER_A, 10);
            List<Run> second = claim(WORKER_B, 10);

            assertThat(first).hasSize(2);
            assertThat(second).isEmpty();
            assertThat(runningIn(reports)).isEqualTo(2);
            reports.stream().filter(r -> first.stream().noneMatch(c -> c.id().equals(r.id()))).forEach(r -> assertUntouched(r));
        }

        @Test
        void aFinishedRunFreesItsPlaceForTheNextClaim() {
            dueRuns(job("reports", null, null), 3);
            configure("reports", 2, null);
            List<Run> first = claim(WORKER_A, 10);

            succeed(first.get(0));

            assertThat(claim(WORKER_B, 10)).hasSize(1);
            assertThat(claim(WORKER_B, 10)).isEmpty();
        }

        @Test
        void theLimitOfOneQueueDoesNotHoldBackAnother() {
            dueRuns(job("reports", null, null), 3);
            List<Run> others = dueRuns(job("webhooks", null, null), 3);
            configure("reports", 1, null);

            List<Run> claimed = claim(WORKER_A, 10);

            assertThat(claimed).hasSize(4);
            assertThat(runningIn(others)).isEqualTo(3);
        }

        @Test
        void aRunningRunWhoseLeaseExpiredNoLongerCountsSoACrashedHoldersSlotFrees() {
            List<Run> reports = dueRuns(job("reports", null, null), 2);
            configure("reports", 1, null);
            Run crashed = claim(WORKER_A, 10).get(0);
            clock().advance(LEASE.minusSeconds(1));
            assertThat(claim(WORKER_B, 10)).as("the lease is still valid").isEmpty();

            clock().advance(Duration.ofSeconds(2));

            List<Run> claimed = claim(WORKER_B, 10);
            assertThat(claimed).hasSize(1);
            assertThat(claimed.get(0).id()).isNotEqualTo(crashed.id());
            assertThat(runningIn(reports)).as("the crashed holder's run waits for lease recovery").isEqualTo(2);
        }

        @Test
        void raisingTheLimitOrClearingItLetsWaitingRunsStart() {
            dueRuns(job("reports", null, null), 6);
            configure("reports", 1, null);
            assertThat(claim(WORKER_A, 10)).hasSize(1);

            configure("reports", 3, null);
            assertThat(claim(WORKER_A, 10)).hasSize(2);

            configure("reports", null, null);
            assertThat(claim(WORKER_A, 10)).hasSize(3);
        }

        @Test
        void theClaimLimitStillApplies() {
            dueRuns(job("reports", null, null), 5);
            configure("reports", 4, null);

            assertThat(claim(WORKER_A, 3)).hasSize(3);
            assertThat(claim(WORKER_A, 3)).hasSize(1);
        }
    }

    // ---------------------------------------------------------------- concurrency keys

    @Nested
    class ConcurrencyKeys {
        @Test
        void runsSharingAKeyAcrossJobsAndQueuesRunAtMostMaxConcurrentAtOnce() {
            List<Run> a = dueRuns(job("a", "billing", 2), 3);
            List<Run> b = dueRuns(job("b", "billing", 2), 3);

            assertThat(claim(WORKER_A, 10)).hasSize(2);
            assertThat(claim(WORKER_B, 10)).isEmpty();

            List<Run> all = new ArrayList<>(a);
            all.addAll(b);
            assertThat(runningIn(all)).isEqualTo(2);
            all.stream().filter(r -> reload(r).status() == RunStatus.PENDING).forEach(r -> assertUntouched(r));
        }

        @Test
        void theSmallestMaxConcurrentAmongTheLiveJobsSharingTheKeyWins() {
            Job wide = job("default", "billing", 3);
            dueRuns(wide, 3);
            Job narrow = job("default", "billing", 1);
            Run narrowRun = due(narrow, 1, clock().instant().minusSeconds(1));

            List<Run> first = claim(WORKER_A, 10);
            assertThat(first).extracting(Run::id).as("limit 1 while the narrow job is live")
                    .containsExactly(narrowRun.id());
            assertThat(claim(WORKER_A, 10)).isEmpty();

            succeed(first.get(0));
            assertThat(claim(WORKER_A, 10)).as("still 1: the narrow job is active, its next run may come")
                    .hasSize(1);

            jobs().changeStatus(narrow.id(), JobStatus.ACTIVE, JobStatus.CANCELLED, null,
                    io.forgeflow.domain.port.JobRepository.RunCancellation.PENDING, null);
            assertThat(claim(WORKER_A, 10)).as("limit 3 once the narrow job is gone").hasSize(2);
        }

        @Test
        void maxConcurrentAloneLimitsEachJobUnderAKeyOfItsOwn() {
            List<Run> x = dueRuns(job("default", null, 1), 3);
            List<Run> y = dueRuns(job("default", null, 2), 3);

            List<Run> claimed = claim(WORKER_A, 10);

            assertThat(claimed).hasSize(3);
            assertThat(runningIn(x)).isEqualTo(1);
            assertThat(runningIn(y)).isEqualTo(2);
        }

        @Test
        void aKeyAndAQueueLimitBothApplyTheTighterWins() {
            dueRuns(job("reports", "billing", 5), 7);
            configure("reports", 1, null);
            assertThat(claim(WORKER_A, 10)).as("the queue's 1").hasSize(1);

            configure("reports", null, null);
            assertThat(claim(WORKER_A, 10)).as("now the key's 5, less the one running").hasSize(4);
        }

        @Test
        void aKeyedRunWhoseLeaseExpiredNoLongerCounts() {
            dueRuns(job("default", "billing", 1), 2);
            Run crashed = claim(WORKER_A, 10).get(0);
            assertThat(claim(WORKER_B, 10)).isEmpty();

            clock().advance(LEASE.plusSeconds(1));

            List<Run> claimed = claim(WORKER_B, 10);
            assertThat(claimed).hasSize(1);
            assertThat(claimed.get(0).id()).isNotEqualTo(crashed.id());
        }

        @Test
        void keyedRunsAreNeverClaimedBeyondTheirLimitByClaimersRacingEachOther() throws Exception {
            dueRuns(job("a", "billing", 3), 20);
            dueRuns(job("b", "billing", 3), 20);

            int claimed = race(8, worker -> claim(worker, 2).size());

            assertThat(claimed).isEqualTo(3);
        }
    }

    // ---------------------------------------------------------------- rate limits

    @Nested
    class RateLimits {
        @Test
        void atMostCountRunsStartInAnyWindowAndTheWindowSlides() {
            List<Run> reports = dueRuns(job("reports", null, null), 6);
            configure("reports", null, new RateLimit(2, 60));

            assertThat(claim(WORKER_A, 10)).hasSize(2);
            assertThat(claim(WORKER_A, 10)).isEmpty();
            clock().advance(Duration.ofSeconds(59));
            assertThat(claim(WORKER_A, 10)).as("59 s later both starts are still in the window").isEmpty();

            clock().advance(Duration.ofSeconds(1));
            assertThat(claim(WORKER_A, 10)).as("60 s later both starts left the window").hasSize(2);
            assertThat(runningIn(reports)).isEqualTo(4);
        }

        @Test
        void eachStartLeavesTheWindowOnItsOwnTimeNotInABucket() {
            dueRuns(job("reports", null, null), 6);
            configure("reports", null, new RateLimit(2, 60));
            assertThat(claim(WORKER_A, 1)).hasSize(1);          // t = 0
            clock().advance(Duration.ofSeconds(30));
            assertThat(claim(WORKER_A, 10)).hasSize(1);         // t = 30
            assertThat(claim(WORKER_A, 10)).isEmpty();

            clock().advance(Duration.ofSeconds(30));            // t = 60: the first start left
            assertThat(claim(WORKER_A, 10)).hasSize(1);
            assertThat(claim(WORKER_A, 10)).isEmpty();

            clock().advance(Duration.ofSeconds(30));            // t = 90: the second start left
            assertThat(claim(WORKER_A, 10)).hasSize(1);
        }

        @Test
        void finishedRunsStillCountAsStartsInTheWindow() {
            dueRuns(job("reports", null, null), 3);
            configure("reports", null, new RateLimit(1, 60));
            Run first = claim(WORKER_A, 10).get(0);

            succeed(first);

            assertThat(claim(WORKER_A, 10)).isEmpty();
        }

        @Test
        void startsInTheWindowAreReported() {
            dueRuns(job("reports", null, null), 3);
            configure("reports", null, new RateLimit(5, 60));
            claim(WORKER_A, 2);

            assertThat(queues().get("default", "reports").startsInWindow()).isEqualTo(2);
            clock().advance(Duration.ofSeconds(61));
            assertThat(queues().get("default", "reports").startsInWindow()).isZero();
        }

        @Test
        void aRateLimitAndMaxRunningTogetherTheTighterWins() {
            dueRuns(job("reports", null, null), 6);
            configure("reports", 1, new RateLimit(3, 60));
            Run first = claim(WORKER_A, 10).get(0);
            assertThat(claim(WORKER_A, 10)).as("max_running 1").isEmpty();

            succeed(first);
            assertThat(claim(WORKER_A, 10)).hasSize(1);
        }

        @Test
        void clearingTheRateLimitLetsWaitingRunsStart() {
            dueRuns(job("reports", null, null), 4);
            configure("reports", null, new RateLimit(1, 3600));
            assertThat(claim(WORKER_A, 10)).hasSize(1);

            queues().configure("default", "reports", false, true, QueueLimits.NONE);

            assertThat(claim(WORKER_A, 10)).hasSize(3);
        }
    }

    // ---------------------------------------------------------------- which queues a claimer takes

    @Nested
    class Selections {
        @Test
        void onlyTakesTheNamedQueuesAndAllButTakesTheRest() {
            Run report = due(job("reports", null, null));
            Run hook = due(job("webhooks", null, null));
            Run plain = due(job("default", null, null));

            assertThat(claim(WORKER_A, QueueSelection.only(Set.of("reports")), 10)).extracting(Run::id)
                    .containsExactly(report.id());
            assertThat(claim(WORKER_A, QueueSelection.allBut(Set.of("webhooks")), 10)).extracting(Run::id)
                    .containsExactly(plain.id());
            assertThat(claim(WORKER_A, QueueSelection.only(Set.of("webhooks", "nothing-here")), 10))
                    .extracting(Run::id).containsExactly(hook.id());
        }

        @Test
        void theSelectionAppliesToLimitedQueuesAndKeyedRunsToo() {
            Run limited = due(job("reports", null, null));
            Run keyed = due(job("webhooks", "hooks", 5));
            configure("reports", 10, null);

            assertThat(claim(WORKER_A, QueueSelection.allBut(Set.of("reports", "webhooks")), 10)).isEmpty();
            assertThat(claim(WORKER_A, QueueSelection.only(Set.of("webhooks")), 10)).extracting(Run::id)
                    .containsExactly(keyed.id());
            assertThat(claim(WORKER_A, QueueSelection.only(Set.of("reports")), 10)).extracting(Run::id)
                    .containsExactly(limited.id());
        }

        @Test
        void severalNamedQueuesAreClaimedInOneClaimOrderPastTheHintAndNoOtherIsTaken() {
            claimsOfTwoNamedQueues(false);
        }

        @Test
        void severalNamedQueuesOneOfThemLimitedAreClaimedInOneClaimOrderToo() {
            claimsOfTwoNamedQueues(true);
        }

        private void claimsOfTwoNamedQueues(boolean reportsLimited) {
            Instant now = clock().instant();
            Job reports = job("reports", null, null);
            Job hooks = job("webhooks", null, null);
            Run other = due(job("default", null, null), 1, now.minusSeconds(90));
            Run hookHigh = due(hooks, 2, now.minusSeconds(1));
            Run report1 = due(reports, 5, now.minusSeconds(40));
            Run hook1 = due(hooks, 5, now.minusSeconds(30));
            Run report2 = due(reports, 5, now.minusSeconds(20));
            Run hook2 = due(hooks, 5, now.minusSeconds(10));
            due(hooks, 5, now.plusSeconds(60));
            if (reportsLimited) {
                configure("reports", 10, null);
            }
            QueueSelection both = QueueSelection.only(Set.of("reports", "webhooks"));

            List<Run> first = claim(WORKER_A, both, 2);
            assertThat(first).extracting(Run::id).containsExactly(hookHigh.id(), report1.id());
            List<Run> second = queue().claim(WORKER_A, SHELL, both, 2, LEASE, ClaimHint.after(first));
            assertThat(second).extracting(Run::id).containsExactly(hook1.id(), report2.id());
            assertThat(queue().claim(WORKER_A, SHELL, both, 10, LEASE, ClaimHint.after(second)))
                    .extracting(Run::id).containsExactly(hook2.id());
            assertThat(claim(WORKER_A, both, 10)).as("the later run of webhooks is not due").isEmpty();
            assertThat(claim(WORKER_A, 10)).extracting(Run::id).containsExactly(other.id());
        }

        @Test
        void anIncludedButExcludedQueueIsNotTaken() {
            due(job("reports", null, null));
            Run hook = due(job("webhooks", null, null));

            assertThat(claim(WORKER_A, new QueueSelection(Set.of("reports", "webhooks"), Set.of("reports")), 10))
                    .extracting(Run::id).containsExactly(hook.id());
        }

        @Test
        void claimOrderIsKeptAcrossOpenAndLimitedQueues() {
            Instant now = clock().instant();
            Run openLow = due(job("default", null, null), 9, now.minusSeconds(60));
            Run limitedHigh = due(job("reports", null, null), 1, now.minusSeconds(1));
            Run keyedMid = due(job("default", "k", 5), 5, now.minusSeconds(1));
            configure("reports", 5, null);

            assertThat(claim(WORKER_A, 10)).extracting(Run::id)
                    .containsExactly(limitedHigh.id(), keyedMid.id(), openLow.id());
        }

        @Test
        void runsOfOpenQueuesNamedBetweenAfterAndBeforeTheLimitedOnesAreClaimedWithTheirs() {
            Instant now = clock().instant();
            configure("b-limited", 5, null);
            configure("d-limited", 5, null);
            Job b = job("b-limited", null, null);
            Job d = job("d-limited", null, null);

            Run between = due(job("c-open", null, null), 5, now.minusSeconds(10));
            Run limited = due(b, 5, now.minusSeconds(20));
            assertThat(claim(WORKER_A, 10)).extracting(Run::id).as("an open queue between two limited ones")
                    .containsExactly(limited.id(), between.id());

            Run after = due(job("e-open", null, null), 5, now.minusSeconds(10));
            limited = due(d, 5, now.minusSeconds(20));
            assertThat(claim(WORKER_A, 10)).extracting(Run::id).as("an open queue after the limited ones")
                    .containsExactly(limited.id(), after.id());

            Run before = due(job("a-open", null, null), 5, now.minusSeconds(10));
            limited = due(b, 5, now.minusSeconds(20));
            assertThat(claim(WORKER_A, 10)).extracting(Run::id).as("an open queue before the limited ones")
                    .containsExactly(limited.id(), before.id());
        }

        @Test
        void aSmallClaimTakesTheFirstRunsInClaimOrderWhetherTheirQueueIsLimitedOrNot() {
            Instant now = clock().instant();
            due(job("default", null, null), 9, now.minusSeconds(60));
            Run limitedHigh = due(job("reports", null, null), 1, now.minusSeconds(1));
            Run keyedMid = due(job("default", "k", 5), 5, now.minusSeconds(1));
            configure("reports", 5, null);

            assertThat(claim(WORKER_A, 1)).extracting(Run::id).as("priority 1 first").containsExactly(limitedHigh.id());
            assertThat(claim(WORKER_A, 1)).extracting(Run::id).as("then priority 5").containsExactly(keyedMid.id());
        }
    }

    // ---------------------------------------------------------------- racing claimers

    @Nested
    class RacingClaimers {
        @Test
        void claimersRacingOverALimitedQueueNeverOvershootItsMaxRunning() throws Exception {
            dueRuns(job("reports", null, null), 40);
            configure("reports", 5, null);

            int claimed = race(8, worker -> claim(worker, 3).size());

            assertThat(claimed).isEqualTo(5);
        }

        @Test
        void claimersRacingOverARateLimitedQueueNeverOvershootItsRate() throws Exception {
            dueRuns(job("reports", null, null), 40);
            configure("reports", null, new RateLimit(4, 60));

            int claimed = race(8, worker -> claim(worker, 3).size());

            assertThat(claimed).isEqualTo(4);
            assertThat(queues().get("default", "reports").startsInWindow()).isEqualTo(4);
        }

        @Test
        void claimersRacingOverTwoNamedQueuesTakeEachRunOnceAndNoRunOfAnotherQueue() throws Exception {
            dueRuns(job("reports", null, null), 30);
            dueRuns(job("webhooks", null, null), 30);
            List<Run> other = dueRuns(job("default", null, null), 5);
            QueueSelection both = QueueSelection.only(Set.of("reports", "webhooks"));
            Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();

            // each claims until it gets nothing
            int claimed = race(8, worker -> {
                int n = 0;
                for (List<Run> got = claim(worker, both, 4); !got.isEmpty(); got = claim(worker, both, 4)) {
                    got.forEach(r -> seen.add(r.id()));
                    n += got.size();
                }
                return n;
            });

            assertThat(claimed).isEqualTo(60);
            assertThat(seen).hasSize(60);
            assertThat(claim(WORKER_A, 10)).extracting(Run::id)
                    .containsExactlyInAnyOrderElementsOf(other.stream().map(Run::id).toList());
        }
    }

    /** {@code claimers} threads each call {@code claim} once, all released together; the sum of what they got. */
    protected int race(int claimers, java.util.function.Function<String, Integer> claim) throws Exception {
        CyclicBarrier start = new CyclicBarrier(claimers);
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        try {
            return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                List<Future<Integer>> results = new ArrayList<>();
                for (int i = 0; i < claimers; i++) {
                    String worker = "racer-" + i;
                    results.add(pool.submit(() -> {
                        start.await();
                        return claim.apply(worker);
                    }));
                }
                int sum = 0;
                for (Future<Integer> f : results) {
                    sum += f.get();
                }
                return sum;
            });
        } finally {
            pool.shutdownNow();
        }
    }

    // ---------------------------------------------------------------- the queue repository

    @Nested
    class Repository {
        @Test
        void aQueueNobodyUsesReadsAsEmptyOpenAndUnlimited() {
            QueueInfo q = queues().get("default", "never-heard-of");

            assertThat(q.name()).isEqualTo("never-heard-of");
            assertThat(q.paused()).isFalse();
            assertThat(q.limits()).isEqualTo(QueueLimits.NONE);
            assertThat(List.of(q.pending(), q.due(), q.running(), q.startsInWindow())).containsOnly(0L);
            assertThat(q.lag()).isZero();
            assertThat(queues().list("default")).extracting(QueueInfo::name).doesNotContain("never-heard-of");
        }

        @Test
        void configureAppliesTheLimitsGivenAndKeepsTheOthers() {
            QueueInfo both = configure("reports", 2, new RateLimit(100, 60));
            assertThat(both.limits()).isEqualTo(new QueueLimits(2, new RateLimit(100, 60)));

            QueueInfo onlyMax = queues().configure("default", "reports", true, false, new QueueLimits(7, null));
            assertThat(onlyMax.limits()).isEqualTo(new QueueLimits(7, new RateLimit(100, 60)));

            QueueInfo onlyRate = queues().configure("default", "reports", false, true, new QueueLimits(null, new RateLimit(5, 1)));
            assertThat(onlyRate.limits()).isEqualTo(new QueueLimits(7, new RateLimit(5, 1)));

            QueueInfo nothing = queues().configure("default", "reports", false, false, new QueueLimits(1, new RateLimit(1, 1)));
            assertThat(nothing.limits()).as("limits not marked as set are ignored").isEqualTo(onlyRate.limits());

            QueueInfo cleared = queues().configure("default", "reports", true, true, QueueLimits.NONE);
            assertThat(cleared.limits()).isEqualTo(QueueLimits.NONE);
            assertThat(queues().get("default", "reports").limits()).isEqualTo(QueueLimits.NONE);
        }

        @Test
        void pausingKeepsTheLimitsAndConfiguringKeepsThePause() {
            configure("reports", 2, null);

            QueueInfo paused = queues().setPaused("default", "reports", true);
            assertThat(paused.paused()).isTrue();
            assertThat(paused.limits().maxRunning()).isEqualTo(2);

            QueueInfo reconfigured = configure("reports", 3, null);
            assertThat(reconfigured.paused()).isTrue();

            QueueInfo resumed = queues().setPaused("default", "reports", false);
            assertThat(resumed.paused()).isFalse();
            assertThat(resumed.limits().maxRunning()).isEqualTo(3);
            assertThat(queues().setPaused("default", "reports", false).paused()).as("resuming twice is harmless").isFalse();
        }

        @Test
        void aQueueReportsItsDepthBacklogRunningCountAndLag() {
            Job reports = job("reports", null, null);
            Instant now = clock().instant();
            due(reports, 5, now.minusSeconds(40));
            due(reports, 5, now.minusSeconds(10));
            due(reports, 5, now.plusSeconds(60));
            Run running = claim(WORKER_A, QueueSelection.only(Set.of("reports")), 1).get(0);

            QueueInfo q = queues().get("default", "reports");

            assertThat(running.scheduledFor()).isEqualTo(now.minusSeconds(40));
            assertThat(q.pending()).as("pending, due or not").isEqualTo(2);
            assertThat(q.due()).isEqualTo(1);
            assertThat(q.running()).isEqualTo(1);
            assertThat(q.lag()).as("the oldest due pending run's wait").isEqualTo(Duration.ofSeconds(10));
            assertThat(queues().list("default")).filteredOn(i -> i.name().equals("reports")).singleElement().isEqualTo(q);
        }

        @Test
        void theListHoldsConfiguredQueuesTheDefaultAndQueuesOfLiveRunsOrRecurringJobsByName() {
            configure("zeta-configured", 1, null);
            queues().setPaused("default", "alpha-paused", true);
            job("nightly", null, null);
            Job oneOff = job("burst", null, null, null);
            due(oneOff);
            Job finished = job("gone", null, null, null);
            due(finished);
            succeed(claim(WORKER_A, QueueSelection.only(Set.of("gone")), 1).get(0));

            List<QueueInfo> list = queues().list("default");

            assertThat(list).extracting(QueueInfo::name)
                    .containsExactly("alpha-paused", "burst", "default", "nightly", "zeta-configured");
            assertThat(list).filteredOn(QueueInfo::paused).extracting(QueueInfo::name).containsExactly("alpha-paused");
            assertThat(list).filteredOn(i -> i.name().equals("burst")).singleElement()
                    .satisfies(i -> assertThat(i.due()).isEqualTo(1));
        }
    }
}
