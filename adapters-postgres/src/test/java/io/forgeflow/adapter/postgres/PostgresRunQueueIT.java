package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ClaimHint;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue.Heartbeat;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class PostgresRunQueueIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Set<String> NOOP = Set.of("noop");
    static final RetryPolicy INSTANT_RETRY = new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1));

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);

    @Nested
    class Claim {

        @Test
        void claimReturnsOnlyRunsWhoseDueTimeHasPassed() {
            Run due = pg.insert(aRun().dueAt(now.minusSeconds(1)));
            Run dueNow = pg.insert(aRun().dueAt(now));
            pg.insert(aRun().dueAt(now.plusSeconds(60)));

            List<Run> claimed = queue.claim("w1", NOOP, 10, LEASE);

            assertThat(claimed).extracting(Run::id).containsExactlyInAnyOrder(due.id(), dueNow.id());
            assertThat(claimed).allSatisfy(run -> assertThat(run.status()).isEqualTo(RunStatus.RUNNING));
        }

        @Test
        void aClaimGivenAHintStartsPastItWithinItsPriorityAndReadsHigherPrioritiesFromTheirStart() {
            List<Run> backlog = IntStream.range(0, 6)
                    .mapToObj(i -> pg.insert(aRun().withPriority(5).dueAt(now.minusSeconds(60 - i)))).toList();
            Run urgent = pg.insert(aRun().withPriority(1).dueAt(now.minusSeconds(1)));
            List<Run> first = queue.claim("w1", NOOP, QueueSelection.ALL, 3, LEASE, null);
            assertThat(first).extracting(Run::id).as("in claim order")
                    .containsExactly(urgent.id(), backlog.get(0).id(), backlog.get(1).id());
            ClaimHint hint = ClaimHint.after(first);

            // placed before the hint after it was given: a hinted claim does not see it ...
            Run behind = pg.insert(aRun().withPriority(5).dueAt(now.minusSeconds(120)));
            Run urgentToo = pg.insert(aRun().withPriority(1).dueAt(now.minusSeconds(1)));
            List<Run> second = queue.claim("w1", NOOP, QueueSelection.ALL, 2, LEASE, hint);
            assertThat(second).extracting(Run::id).as("priorities before the hint's are read from their start")
                    .containsExactly(urgentToo.id(), backlog.get(2).id());
            assertThat(queue.claim("w1", NOOP, QueueSelection.ALL, 10, LEASE, ClaimHint.after(second)))
                    .extracting(Run::id).as("past the hint: the rest of the backlog")
                    .containsExactly(backlog.get(3).id(), backlog.get(4).id(), backlog.get(5).id());
            // ... and a claim without a hint reads from the start (the claimer drops it after a claim came up short)
            assertThat(queue.claim("w1", NOOP, QueueSelection.ALL, 10, LEASE, null)).extracting(Run::id)
                    .containsExactly(behind.id());
        }

        @Test
        void claimTakesTheHighestPriorityFirstThenTheEarliestDue() {
            Run lowEarly = pg.insert(aRun().withPriority(9).dueAt(now.minusSeconds(300)));
            Run highLate = pg.insert(aRun().withPriority(1).dueAt(now.minusSeconds(10)));
            Run highEarly = pg.insert(aRun().withPriority(1).dueAt(now.minusSeconds(20)));
            Run middle = pg.insert(aRun().withPriority(5).dueAt(now.minusSeconds(400)));

            assertThat(queue.claim("w1", NOOP, 3, LEASE)).extracting(Run::id)
                    .containsExactly(highEarly.id(), highLate.id(), middle.id());
            assertThat(queue.claim("w1", NOOP, 3, LEASE)).extracting(Run::id).containsExactly(lowEarly.id());
        }

        @Test
        void claimOnlyTakesRunsOfTheListedExecutors() {
            Run shell = pg.insert(aRun().withExecutor("shell"));
            Run http = pg.insert(aRun().withExecutor("http"));
            pg.insert(aRun().withExecutor("other"));

            assertThat(queue.claim("w1", Set.of("shell", "http"), 10, LEASE)).extracting(Run::id)
                    .containsExactlyInAnyOrder(shell.id(), http.id());
            assertThat(queue.claim("w1", Set.of(), 10, LEASE)).isEmpty();
        }

        @Test
        void claimTakesAtMostTheLimit() {
            IntStream.range(0, 5).forEach(i -> pg.insert(aRun()));

            assertThat(queue.claim("w1", NOOP, 3, LEASE)).hasSize(3);
            assertThat(queue.claim("w1", NOOP, 3, LEASE)).hasSize(2);
            assertThat(queue.claim("w1", NOOP, 3, LEASE)).isEmpty();
        }

        @Test
        void aClaimedRunIsLeasedFromNowWithItsAttemptCountedAndAStartedAttemptRow() {
            Run seeded = pg.insert(aRun().withMaxAttempts(4));

            Run claimed = queue.claim("w1", NOOP, 1, LEASE).get(0);

            assertThat(claimed.id()).isEqualTo(seeded.id());
            assertThat(claimed.workerId()).isEqualTo("w1");
            assertThat(claimed.attempt()).isEqualTo(1);
            assertThat(claimed.startedAt()).isEqualTo(now);
            assertThat(claimed.leaseExpiresAt()).isEqualTo(now.plus(LEASE));
            assertThat(runs.find(seeded.id())).contains(claimed);
            assertThat(runs.attempts(seeded.id()))
                    .containsExactly(new Attempt(seeded.id(), 1, "w1", now, null, null, null));
        }

        @Test
        void aRunningRunIsNotClaimedAgain() {
            pg.insert(aRun());
            queue.claim("w1", NOOP, 10, LEASE);

            assertThat(queue.claim("w2", NOOP, 10, LEASE)).isEmpty();
        }

        @Test
        void concurrentClaimersTakeDisjointSetsThatTogetherCoverEveryDueRun() {
            Job job = pg.insert(aJob());
            List<Run> seeded = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                seeded.add(aRun().ofJob(job.id()).dueAt(now.minusSeconds(i % 50)).withPriority(1 + i % 9).build());
            }
            pg.insertAll(seeded);
            int claimers = 10;
            CyclicBarrier start = new CyclicBarrier(claimers);
            ExecutorService pool = Executors.newFixedThreadPool(claimers);
            try {
                List<List<String>> claims = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                    List<Future<List<String>>> futures = new ArrayList<>();
                    for (int c = 0; c < claimers; c++) {
                        String worker = "w" + c;
                        futures.add(pool.submit(() -> {
                            List<String> mine = new ArrayList<>();
                            start.await();
                            List<Run> batch;
                            do {
                                batch = queue.claim(worker, NOOP, 25, LEASE);
                                batch.forEach(run -> mine.add(run.id()));
                            } while (!batch.isEmpty());
                            return mine;
                        }));
                    }
                    List<List<String>> all = new ArrayList<>();
                    for (Future<List<String>> future : futures) {
                        all.add(future.get());
                    }
                    return all;
                });

                List<String> flattened = claims.stream().flatMap(List::stream).toList();
                assertThat(flattened).doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(seeded.stream().map(Run::id).toList());
                assertThat(claims.stream().filter(c -> !c.isEmpty())).as("claimers that got runs").hasSizeGreaterThan(1);
                // each claimed once: one running attempt each in its history (no row until it ends, issue 40)
                assertThat(count("SELECT count(*) FROM runs WHERE status = 'running' AND attempt = 1"))
                        .isEqualTo(1_000);
                for (Run run : seeded) {
                    assertThat(runs.attempts(run.id())).singleElement()
                            .satisfies(a -> assertThat(a.outcome()).isNull());
                }
            } finally {
                pool.shutdownNow();
            }
        }

        @Test
        void withoutATestClockTheDatabaseClockDecidesWhatIsDue() {
            PostgresRunQueue production = new PostgresRunQueue(pg.jdbi(), null);
            Run past = pg.insert(aRun().dueAt(Instant.now().minus(Duration.ofDays(1))));
            pg.insert(aRun().dueAt(Instant.now().plus(Duration.ofDays(1))));

            List<Run> claimed = production.claim("w1", NOOP, 10, LEASE);

            assertThat(claimed).extracting(Run::id).containsExactly(past.id());
            Instant dbNow = databaseNow();
            assertThat(claimed.get(0).leaseExpiresAt()).isBetween(dbNow.plus(LEASE).minusSeconds(10), dbNow.plus(LEASE));
        }
    }

    @Nested
    class Fencing {

        @Test
        void anAcknowledgementWithAStaleAttemptChangesNothing() {
            pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(30)).attempt(2));
            Run before = onlyRun();
            List<Attempt> attemptsBefore = runs.attempts(before.id());

            Set<RunFence> applied = queue.acknowledge(List.of(
                    success(new RunFence(before.id(), "w1", 1)),
                    failure(new RunFence(before.id(), "w1", 1), RunStatus.DEAD)));

            assertThat(applied).isEmpty();
            assertThat(runs.find(before.id())).contains(before);
            assertThat(runs.attempts(before.id())).isEqualTo(attemptsBefore);
        }

        @Test
        void anAcknowledgementFromAnotherWorkerChangesNothing() {
            pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(30)));
            Run before = onlyRun();
            List<Attempt> attemptsBefore = runs.attempts(before.id());

            assertThat(queue.acknowledge(List.of(success(new RunFence(before.id(), "w2", 1))))).isEmpty();
            assertThat(queue.heartbeat("w2", LEASE).extended()).isEmpty();
            assertThat(queue.release(List.of(new RunFence(before.id(), "w2", 1)))).isEmpty();

            assertThat(runs.find(before.id())).contains(before);
            assertThat(runs.attempts(before.id())).isEqualTo(attemptsBefore);
        }

        @Test
        void slowWorkerCannotOverwriteNewOwner() {
            pg.insert(aRun().withMaxAttempts(3));
            Run heldByA = queue.claim("A", NOOP, 1, LEASE).get(0);
            clock.advance(LEASE.plusSeconds(1));
            assertThat(recover(INSTANT_RETRY, 10)).containsExactly(fence(heldByA));
            assertThat(runs.find(heldByA.id()).orElseThrow().status()).isEqualTo(RunStatus.PENDING);
            clock.advance(Duration.ofSeconds(1));
            Run heldByB = queue.claim("B", NOOP, 1, LEASE).get(0);
            assertThat(heldByB.attempt()).isEqualTo(2);
            RunFence b = fence(heldByB);
            assertThat(queue.acknowledge(List.of(success(b)))).containsExactly(b);
            Run afterB = runs.find(heldByA.id()).orElseThrow();
            List<Attempt> attemptsAfterB = runs.attempts(heldByA.id());

            Set<RunFence> lateSuccess = queue.acknowledge(List.of(success(fence(heldByA))));
            Set<RunFence> lateFailure = queue.acknowledge(List.of(failure(fence(heldByA), RunStatus.PENDING)));

            assertThat(lateSuccess).isEmpty();
            assertThat(lateFailure).isEmpty();
            assertThat(runs.find(heldByA.id())).contains(afterB);
            assertThat(afterB.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(runs.attempts(heldByA.id())).isEqualTo(attemptsAfterB)
                    .extracting(Attempt::attempt, Attempt::workerId, Attempt::outcome)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(1, "A", AttemptOutcome.LEASE_EXPIRED),
                            org.assertj.core.groups.Tuple.tuple(2, "B", AttemptOutcome.SUCCEEDED));
        }

        @Test
        void aWorkerThatReclaimedItsOwnRunCannotAcknowledgeTheNewAttemptWithTheOldOne() {
            pg.insert(aRun());
            String firstLife = "A#" + "1".repeat(32);
            String secondLife = "A#" + "2".repeat(32);
            Run first = queue.claim(firstLife, NOOP, 1, LEASE).get(0);
            clock.advance(LEASE.plusSeconds(1));
            recover(INSTANT_RETRY, 10);
            clock.advance(Duration.ofSeconds(1));
            assertThat(queue.claim(firstLife, NOOP, 1, LEASE)).as("an ended holder claims nothing").isEmpty();
            Run second = queue.claim(secondLife, NOOP, 1, LEASE).get(0);

            assertThat(first.workerId()).isEqualTo("A");
            assertThat(second.workerId()).isEqualTo("A");
            assertThat(queue.acknowledge(List.of(success(new RunFence(first.id(), firstLife, 1))))).isEmpty();
            assertThat(queue.acknowledge(List.of(success(new RunFence(second.id(), secondLife, 1))))).isEmpty();
            assertThat(runs.find(first.id()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
            assertThat(queue.acknowledge(List.of(success(new RunFence(second.id(), secondLife, 2)))))
                    .containsExactly(new RunFence(second.id(), secondLife, 2));
        }
    }

    /** Acknowledgements in small batches: one primary-key statement per run (see db/functions/forgeflow_end_attempts.sql). */
    @Nested
    class Acknowledge {

        Set<RunFence> ack(List<Acknowledgement> acks) {
            return queue.acknowledge(acks);
        }

        @Test
        void theAttemptRowIsWrittenOnceWhenTheAttemptEnds() {
            Run seeded = pg.insert(aRun().withMaxAttempts(4));
            Run claimed = queue.claim("w1", NOOP, 1, LEASE).get(0);
            assertThat(count("SELECT count(*) FROM run_attempts")).as("no row at the claim").isZero();

            ack(List.of(new Acknowledgement(fence(claimed), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED,
                    Duration.ZERO, "ok", null, null)));

            assertThat(runs.attempts(seeded.id())).containsExactly(
                    new Attempt(seeded.id(), 1, "w1", now, now, AttemptOutcome.SUCCEEDED, null));
            assertThat(count("SELECT count(*) FROM run_attempts")).as("one row, inserted at the end").isEqualTo(1);
        }

        @Test
        void anAttemptRowAnOlderClaimWroteIsFinishedByTheEnd() {
            Run seeded = pg.insert(aRun().withMaxAttempts(4));
            Run claimed = queue.claim("w1", NOOP, 1, LEASE).get(0);
            // as a node of before issue 40 claimed: a started row
            pg.jdbi().useHandle(h -> h.execute("INSERT INTO run_attempts (run_id, attempt, worker_id, started_at) "
                    + "SELECT id, attempt, worker_id, started_at FROM runs WHERE id = CAST(? AS uuid)", seeded.id()));
            assertThat(runs.attempts(seeded.id())).containsExactly(new Attempt(seeded.id(), 1, "w1", now, null, null,
                    null));

            ack(List.of(new Acknowledgement(fence(claimed), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED,
                    Duration.ZERO, "ok", null, null)));

            assertThat(runs.attempts(seeded.id())).containsExactly(
                    new Attempt(seeded.id(), 1, "w1", now, now, AttemptOutcome.SUCCEEDED, null));
        }

        @Test
        void outputAndErrorsWithNulCharactersAreStoredInsteadOfRefused() {
            pg.insert(aRun().dueAt(now.minusSeconds(1)));
            Run run = queue.claim("w1", NOOP, 1, LEASE).get(0);
            Set<RunFence> applied = ack(List.of(new Acknowledgement(fence(run), AttemptOutcome.FAILED,
                    RunStatus.DEAD, null, "bin\u0000ary", "bad\u0000byte")));
            assertThat(applied).containsExactly(fence(run));
            Run stored = runs.find(run.id()).orElseThrow();
            assertThat(stored.output()).isEqualTo("bin\uFFFDary");
            assertThat(stored.error()).isEqualTo("bad\uFFFDbyte");
        }

        @Test
        void aRetryAfterIsRecordedOnTheFinishedAttemptOnly() {
            IntStream.range(0, 2).forEach(i -> pg.insert(aRun().withMaxAttempts(3).dueAt(now.minusSeconds(10 - i))));
            List<Run> claimed = queue.claim("w1", NOOP, 2, LEASE);
            Run waited = claimed.get(0);
            Run plain = claimed.get(1);

            Set<RunFence> applied = ack(List.of(
                    new Acknowledgement(fence(waited), AttemptOutcome.FAILED, RunStatus.PENDING, Duration.ofSeconds(120),
                            "", "HTTP 503 Service Unavailable (Retry-After: 120s)", Duration.ofSeconds(120)),
                    new Acknowledgement(fence(plain), AttemptOutcome.FAILED, RunStatus.PENDING, Duration.ofSeconds(3),
                            "", "HTTP 500")));

            assertThat(applied).containsExactlyInAnyOrder(fence(waited), fence(plain));
            assertThat(runs.attempts(waited.id())).singleElement().satisfies(a -> {
                assertThat(a.retryAfterSeconds()).isEqualTo(120);
                assertThat(a.outcome()).isEqualTo(AttemptOutcome.FAILED);
            });
            assertThat(runs.attempts(plain.id())).singleElement()
                    .satisfies(a -> assertThat(a.retryAfterSeconds()).isNull());
            assertThat(runs.find(waited.id()).orElseThrow().scheduledFor()).isEqualTo(now.plusSeconds(120));
        }

        @Test
        void aFinishedAttemptGainsItsRetryAfterOnceAndIsOtherwiseNeverRewritten() {
            pg.insert(aRun().withMaxAttempts(3).dueAt(now.minusSeconds(1)));
            Run run = queue.claim("w1", NOOP, 1, LEASE).get(0);
            ack(List.of(new Acknowledgement(fence(run), AttemptOutcome.FAILED, RunStatus.PENDING, Duration.ofSeconds(2),
                    "", "HTTP 503", Duration.ofSeconds(2))));

            assertThatThrownBy(() -> pg.jdbi().useHandle(h -> h.execute(
                    "UPDATE run_attempts SET retry_after_seconds = 9 WHERE run_id = CAST(? AS uuid)", run.id())))
                    .hasMessageContaining("never rewritten");
            assertThatThrownBy(() -> pg.jdbi().useHandle(h -> h.execute(
                    "UPDATE run_attempts SET error = 'x' WHERE run_id = CAST(? AS uuid)", run.id())))
                    .hasMessageContaining("never rewritten");
            assertThat(runs.attempts(run.id())).singleElement()
                    .satisfies(a -> assertThat(a.retryAfterSeconds()).isEqualTo(2));
        }

        @Test
        void aStaleAcknowledgementWithARetryAfterChangesNothing() {
            pg.insert(aRun().withMaxAttempts(3).dueAt(now.minusSeconds(1)));
            Run run = queue.claim("w1", NOOP, 1, LEASE).get(0);
            RunFence stale = new RunFence(run.id(), "w2", run.attempt());

            Set<RunFence> applied = ack(List.of(new Acknowledgement(stale, AttemptOutcome.FAILED, RunStatus.PENDING,
                    Duration.ofSeconds(5), "", "HTTP 429", Duration.ofSeconds(5))));

            assertThat(applied).isEmpty();
            assertThat(runs.attempts(run.id())).singleElement().satisfies(a -> {
                assertThat(a.retryAfterSeconds()).isNull();
                assertThat(a.outcome()).isNull();
            });
        }

        @Test
        void aBatchOfMixedOutcomesIsAppliedInOneCall() {
            IntStream.range(0, 4).forEach(i -> pg.insert(aRun().withMaxAttempts(3).dueAt(now.minusSeconds(10 - i))));
            List<Run> claimed = queue.claim("w1", NOOP, 4, LEASE);
            Run succeeded = claimed.get(0);
            Run retried = claimed.get(1);
            Run dead = claimed.get(2);
            Run cancelled = claimed.get(3);
            clock.advance(Duration.ofSeconds(5));
            Instant later = clock.instant();

            Set<RunFence> applied = ack(List.of(
                    new Acknowledgement(fence(succeeded), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, null, "ok", null),
                    new Acknowledgement(fence(retried), AttemptOutcome.FAILED, RunStatus.PENDING,
                            Duration.ofSeconds(10), "partial", "exit 1"),
                    new Acknowledgement(fence(dead), AttemptOutcome.TIMED_OUT, RunStatus.DEAD, null, "", "timed out"),
                    new Acknowledgement(fence(cancelled), AttemptOutcome.CANCELLED, RunStatus.CANCELLED, null, "",
                            "cancelled by operator")));

            assertThat(applied).containsExactlyInAnyOrder(fence(succeeded), fence(retried), fence(dead), fence(cancelled));
            Run s = runs.find(succeeded.id()).orElseThrow();
            assertThat(s.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(s.output()).isEqualTo("ok");
            assertThat(s.finishedAt()).isEqualTo(later);
            assertThat(s.workerId()).as("the worker of its last attempt").isEqualTo(succeeded.workerId());
            assertThat(s.leaseExpiresAt()).isNull();
            Run r = runs.find(retried.id()).orElseThrow();
            assertThat(r.status()).isEqualTo(RunStatus.PENDING);
            assertThat(r.scheduledFor()).isEqualTo(later.plusSeconds(10));
            assertThat(r.error()).isEqualTo("exit 1");
            assertThat(r.finishedAt()).isNull();
            assertThat(r.attempt()).isEqualTo(1);
            assertThat(runs.find(dead.id()).orElseThrow().status()).isEqualTo(RunStatus.DEAD);
            assertThat(runs.find(cancelled.id()).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(runs.attempts(succeeded.id())).singleElement()
                    .satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED))
                    .satisfies(a -> assertThat(a.finishedAt()).isEqualTo(later));
            assertThat(runs.attempts(retried.id())).singleElement()
                    .satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.FAILED))
                    .satisfies(a -> assertThat(a.error()).isEqualTo("exit 1"));
            assertThat(runs.attempts(dead.id())).singleElement().extracting(Attempt::outcome)
                    .isEqualTo(AttemptOutcome.TIMED_OUT);
            assertThat(runs.attempts(cancelled.id())).singleElement().extracting(Attempt::outcome)
                    .isEqualTo(AttemptOutcome.CANCELLED);
        }

        @Test
        void onlyTheFencesThatStillHoldAreApplied() {
            pg.insert(aRun());
            pg.insert(aRun());
            List<Run> claimed = queue.claim("w1", NOOP, 2, LEASE);
            RunFence valid = fence(claimed.get(0));
            RunFence stale = new RunFence(claimed.get(1).id(), "w1", 7);

            assertThat(ack(List.of(success(valid), success(stale)))).containsExactly(valid);
            assertThat(runs.find(claimed.get(1).id()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        }

        @Test
        void aStaleFenceAndTheCurrentOneForTheSameRunInOneBatchApplyOnlyTheCurrentOne() {
            pg.insert(aRun());
            Run claimed = queue.claim("w1", NOOP, 1, LEASE).get(0);
            RunFence stale = new RunFence(claimed.id(), "w0", 1);

            assertThat(ack(List.of(failure(stale, RunStatus.DEAD), success(fence(claimed)))))
                    .containsExactly(fence(claimed));
            assertThat(runs.find(claimed.id()).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(queue.release(List.of(stale, fence(claimed)))).isEmpty();
        }

        @Test
        void aOneOffJobBecomesCompletedWhenItsRunEnds() {
            Job oneOff = pg.insert(aJob());
            Job recurring = pg.insert(aJob().recurring("*/5 * * * *", now.plusSeconds(300)));
            Job retrying = pg.insert(aJob());
            pg.insert(aRun().ofJob(oneOff.id()));
            pg.insert(aRun().ofJob(recurring.id()));
            pg.insert(aRun().ofJob(retrying.id()));
            List<Run> claimed = queue.claim("w1", NOOP, 3, LEASE);

            ack(claimed.stream().map(run -> run.jobId().equals(retrying.id())
                    ? failure(fence(run), RunStatus.PENDING) : success(fence(run))).toList());

            PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
            Job completed = jobs.find(oneOff.id()).orElseThrow();
            assertThat(completed.status()).isEqualTo(JobStatus.COMPLETED);
            assertThat(completed.nextRunAt()).isNull();
            assertThat(completed.updatedAt()).isEqualTo(now);
            assertThat(jobs.find(recurring.id()).orElseThrow().status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(jobs.find(recurring.id()).orElseThrow().nextRunAt()).isEqualTo(now.plusSeconds(300));
            assertThat(jobs.find(retrying.id()).orElseThrow().status()).isEqualTo(JobStatus.ACTIVE);
        }

        @Test
        void anEmptyBatchIsANoOp() {
            assertThat(ack(List.of())).isEmpty();
        }

        @Test
        void withoutATestClockARetryIsDueAtTheDatabaseNowPlusTheDelay() {
            PostgresRunQueue production = new PostgresRunQueue(pg.jdbi(), null);
            pg.insert(aRun());
            Run claimed = production.claim("w1", NOOP, 1, LEASE).get(0);
            Instant before = databaseNow();

            production.acknowledge(List.of(new Acknowledgement(fence(claimed), AttemptOutcome.FAILED,
                    RunStatus.PENDING, Duration.ofMinutes(10), "", "boom")));

            Instant after = databaseNow();
            assertThat(runs.find(claimed.id()).orElseThrow().scheduledFor())
                    .isBetween(before.plus(Duration.ofMinutes(10)), after.plus(Duration.ofMinutes(10)));
        }
    }

    /**
     * The same acknowledgements in one batch large enough for the set-based statement (16 rows and more): each is sent
     * with 20 fences of runs that do not exist, which change nothing and are not applied.
     */
    @Nested
    class AcknowledgeInALargeBatch extends Acknowledge {
        @Override
        Set<RunFence> ack(List<Acknowledgement> acks) {
            List<Acknowledgement> padded = new ArrayList<>(acks);
            for (int i = 0; i < 20; i++) {
                padded.add(success(new RunFence(Ids.newId(now), "w1", 1)));
            }
            assertThat(padded.size()).isGreaterThanOrEqualTo(16);
            return queue.acknowledge(padded);
        }
    }

    @Nested
    class HeartbeatAndCancellation {

        @Test
        void aHeartbeatExtendsOnlyThisWorkersLeases() {
            pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(5)));
            pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(6)));
            Run other = pg.insert(aRun().running().leasedBy("w2").leaseUntil(now.plusSeconds(7)));
            clock.advance(Duration.ofSeconds(4));

            Heartbeat heartbeat = queue.heartbeat("w1", LEASE);

            assertThat(heartbeat.extended()).hasSize(2).allSatisfy(f -> assertThat(f.workerId()).isEqualTo("w1"));
            assertThat(heartbeat.cancelRequested()).isEmpty();
            assertThat(runs.list(null, RunStatus.RUNNING, 10, null).items()).allSatisfy(run -> {
                if (run.workerId().equals("w1")) {
                    assertThat(run.leaseExpiresAt()).isEqualTo(clock.instant().plus(LEASE));
                } else {
                    assertThat(run).isEqualTo(other);
                }
            });
        }

        @Test
        void aHeartbeatReportsTheRunsAnOperatorAskedToCancel() {
            Run keep = pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(30)));
            Run stop = pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(30)));
            runs.requestCancel(stop.id());

            Heartbeat heartbeat = queue.heartbeat("w1", LEASE);

            assertThat(heartbeat.extended()).extracting(RunFence::runId).containsExactlyInAnyOrder(keep.id(), stop.id());
            assertThat(heartbeat.cancelRequested()).containsExactly(stop.id());
            assertThat(queue.cancellationsFor("w1")).containsExactly(stop.id());
            assertThat(queue.cancellationsFor("w2")).isEmpty();
        }

        @Test
        void aWorkerWithNoRunsHeartbeatsNothing() {
            assertThat(queue.heartbeat("idle", LEASE).extended()).isEmpty();
        }
    }

    /** Reads the expired leases, decides them as the leader's rescuer does, and applies the decisions. */
    Set<RunFence> recover(RetryPolicy policy, int limit) {
        OutcomePolicy decide = new OutcomePolicy(policy, new java.util.SplittableRandom(5));
        return queue.recover(queue.expiredLeases(limit).stream().map(decide::afterExpiredLease).toList());
    }

    @Nested
    class Recovery {

        @Test
        void anExpiredLeaseGoesBackToPendingWithALeaseExpiredAttempt() {
            RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));
            Run crashed = pg.insert(aRun().running().leasedBy("dead").leaseUntil(now.minusSeconds(60)).withMaxAttempts(3));

            Set<RunFence> recovered = recover(policy, 10);

            Run run = runs.find(crashed.id()).orElseThrow();
            assertThat(recovered).containsExactly(new RunFence(crashed.id(), "dead", 1));
            assertThat(run.status()).isEqualTo(RunStatus.PENDING);
            assertThat(run.workerId()).as("read: the worker of its last attempt").isEqualTo("dead");
            assertThat(run.leaseExpiresAt()).isNull();
            assertThat(run.attempt()).isEqualTo(1);
            assertThat(run.scheduledFor()).isBetween(now, now.plus(policy.ceilingAfter(1)));
            assertThat(run.error()).contains("lease expired", "dead");
            assertThat(runs.attempts(crashed.id())).singleElement().satisfies(a -> {
                assertThat(a.outcome()).isEqualTo(AttemptOutcome.LEASE_EXPIRED);
                assertThat(a.workerId()).isEqualTo("dead");
                assertThat(a.finishedAt()).isEqualTo(now);
            });
        }

        @Test
        void anExpiredLeaseAtMaxAttemptsBecomesDead() {
            Run crashed = pg.insert(aRun().running().leasedBy("dead").leaseUntil(now.minusSeconds(60))
                    .withMaxAttempts(3).attempt(3));

            assertThat(recover(RetryPolicy.DEFAULT, 10)).hasSize(1);

            Run run = runs.find(crashed.id()).orElseThrow();
            assertThat(run.status()).isEqualTo(RunStatus.DEAD);
            assertThat(run.finishedAt()).isEqualTo(now);
            assertThat(runs.attempts(crashed.id())).singleElement().extracting(Attempt::outcome)
                    .isEqualTo(AttemptOutcome.LEASE_EXPIRED);
        }

        @Test
        void aValidLeaseIsUntouched() {
            Run alive = pg.insert(aRun().running().leasedBy("alive").leaseUntil(now.plusSeconds(1)));
            List<Attempt> attempts = runs.attempts(alive.id());

            assertThat(recover(RetryPolicy.DEFAULT, 10)).isEmpty();

            assertThat(runs.find(alive.id())).contains(alive);
            assertThat(runs.attempts(alive.id())).isEqualTo(attempts);
        }

        @Test
        void recoveryIsBoundedByTheLimit() {
            IntStream.range(0, 5).forEach(i ->
                    pg.insert(aRun().running().leasedBy("dead").leaseUntil(now.minusSeconds(60 - i))));

            assertThat(recover(RetryPolicy.DEFAULT, 2)).hasSize(2);
            assertThat(recover(RetryPolicy.DEFAULT, 10)).hasSize(3);
            assertThat(recover(RetryPolicy.DEFAULT, 10)).isEmpty();
        }

        @Test
        void anExpiredRunThatAnOperatorAskedToCancelBecomesCancelled() {
            Run asked = pg.insert(aRun().running().leasedBy("dead").leaseUntil(now.minusSeconds(60)).cancelRequested());

            assertThat(queue.expiredLeases(10)).singleElement().satisfies(lease -> assertThat(lease.cancelRequested()).isTrue());
            assertThat(recover(RetryPolicy.DEFAULT, 10)).hasSize(1);

            Run run = runs.find(asked.id()).orElseThrow();
            assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(run.cancelRequested()).isFalse();
        }

        @Test
        void aOneOffJobWhoseRunDiesOnRecoveryBecomesCompleted() {
            Job job = pg.insert(aJob());
            pg.insert(aRun().ofJob(job.id()).running().leasedBy("dead").leaseUntil(now.minusSeconds(1))
                    .withMaxAttempts(1));

            recover(RetryPolicy.DEFAULT, 10);

            assertThat(new PostgresJobRepository(pg.jdbi(), clock).find(job.id()).orElseThrow().status())
                    .isEqualTo(JobStatus.COMPLETED);
        }

        @Test
        void aBatchOfRecoveriesSkipsTheRunsOfAHolderThatCameBack() {
            List<Run> crashed = IntStream.range(0, 20).mapToObj(i -> pg.insert(aRun().running()
                    .leasedBy(i == 7 ? "back" : "dead").leaseUntil(now.minusSeconds(60 - i)).withMaxAttempts(3)))
                    .toList();
            Run extended = crashed.get(7);
            List<io.forgeflow.domain.port.ExpiredLease> read = queue.expiredLeases(100);
            assertThat(read).hasSize(20);
            queue.heartbeat("back", List.of(new RunFence(extended.id(), "back", 1)), LEASE); // it came back meanwhile
            OutcomePolicy decide = new OutcomePolicy(RetryPolicy.DEFAULT, new java.util.SplittableRandom(5));

            Set<RunFence> applied = queue.recover(read.stream().map(decide::afterExpiredLease).toList());

            assertThat(applied).hasSize(19).doesNotContain(new RunFence(extended.id(), "back", 1));
            assertThat(runs.find(extended.id()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
            assertThat(runs.countByStatus().get(RunStatus.PENDING)).isEqualTo(19);
        }
    }

    @Nested
    class Release {

        @Test
        void aReleasedRunIsPendingDueNowAndTheAttemptDoesNotCountAgainstTheBudget() {
            pg.insert(aRun().withMaxAttempts(1));
            Run claimed = queue.claim("w1", NOOP, 1, LEASE).get(0);
            clock.advance(Duration.ofSeconds(3));

            assertThat(queue.release(List.of(fence(claimed)))).containsExactly(fence(claimed));

            Run released = runs.find(claimed.id()).orElseThrow();
            assertThat(released.status()).isEqualTo(RunStatus.PENDING);
            assertThat(released.scheduledFor()).isEqualTo(clock.instant());
            assertThat(released.workerId()).as("the worker of its last attempt").isEqualTo(claimed.workerId());
            assertThat(released.leaseExpiresAt()).isNull();
            assertThat(released.hasAttemptsLeft()).isTrue();
            assertThat(released.maxAttempts()).isEqualTo(2);
            assertThat(runs.attempts(claimed.id())).singleElement().extracting(Attempt::outcome)
                    .isEqualTo(AttemptOutcome.RELEASED);
            Run again = queue.claim("w2", NOOP, 1, LEASE).get(0);
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(again.hasAttemptsLeft()).isFalse();
        }

        @Test
        void releasingAStaleFenceChangesNothing() {
            pg.insert(aRun());
            Run claimed = queue.claim("w1", NOOP, 1, LEASE).get(0);

            assertThat(queue.release(List.of(new RunFence(claimed.id(), "w1", 2)))).isEmpty();
            assertThat(runs.find(claimed.id())).contains(claimed);
        }
    }

    private Run onlyRun() {
        return runs.list(null, null, 2, null).items().get(0);
    }

    private static RunFence fence(Run run) {
        return new RunFence(run.id(), run.workerId(), run.attempt());
    }

    private static Acknowledgement success(RunFence fence) {
        return new Acknowledgement(fence, AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, null, "done", null);
    }

    private static Acknowledgement failure(RunFence fence, RunStatus next) {
        return new Acknowledgement(fence, AttemptOutcome.FAILED, next,
                next == RunStatus.PENDING ? Duration.ofSeconds(1) : null, "", "failed");
    }

    private static long count(String sql) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }

    private static Instant databaseNow() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT now()").mapTo(java.time.OffsetDateTime.class).one())
                .toInstant();
    }
}
