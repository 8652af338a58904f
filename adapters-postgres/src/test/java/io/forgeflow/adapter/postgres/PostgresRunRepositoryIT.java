package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunFence;
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
import java.util.Map;
import java.util.Set;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

class PostgresRunRepositoryIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);

    @Nested
    class InsertAndFind {

        @Test
        void aManualRunIsStoredAndFoundWithItsPayload() {
            Job job = pg.insert(aJob());
            Map<String, Object> payload = Map.of("url", "https://example.com/hook", "method", "POST",
                    "headers", Map.of("X-Token", "t"), "body", List.of(1, 2.5, true, "x"));
            Run run = Run.pending(Ids.newId(now), job.id(), 4, 2, now.plusSeconds(5), "http", payload, 60, now);

            Run stored = runs.insert(run);

            assertThat(stored).isEqualTo(run);
            assertThat(runs.find(run.id())).contains(run);
        }

        @Test
        void idsThatAreNotWellFormedFindNothing() {
            assertThat(runs.find("42")).isEmpty();
            assertThat(runs.find(null)).isEmpty();
            assertThat(runs.attempts("42")).isEmpty();
            assertThat(runs.cancelPending("42", "x")).isEmpty();
            assertThat(runs.requestCancel("42")).isEmpty();
            assertThat(runs.requeue("42", 3)).isEmpty();
        }

        @Test
        void aRunThatEndedKeepsTheWorkerOfItsLastAttemptInEveryRead() {
            Run run = pg.insert(aRun().withMaxAttempts(2));
            Run first = queue.claim("w-first", Set.of("noop"), 1, LEASE).get(0);
            queue.acknowledge(List.of(new Acknowledgement(new RunFence(first.id(), "w-first", 1),
                    AttemptOutcome.FAILED, RunStatus.PENDING, Duration.ZERO, "", "exit 1")));
            assertThat(runs.find(run.id()).orElseThrow().workerId()).as("a retry waits: its last attempt's worker")
                    .isEqualTo("w-first");
            Run second = queue.claim("w-second", Set.of("noop"), 1, LEASE).get(0);
            queue.acknowledge(List.of(new Acknowledgement(new RunFence(second.id(), "w-second", 2),
                    AttemptOutcome.FAILED, RunStatus.DEAD, Duration.ZERO, "", "exit 1")));

            Run dead = runs.find(run.id()).orElseThrow();
            assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
            assertThat(dead.workerId()).isEqualTo("w-second");
            assertThat(dead.leaseExpiresAt()).isNull();
            assertThat(runs.list(null, RunStatus.DEAD, 10, null).items()).extracting(Run::workerId)
                    .containsExactly("w-second");
            assertThat(runs.listForDisplay(run.jobId(), null, 10, null, io.forgeflow.domain.port.ListBudget.DEFAULT).items())
                    .extracting(listed -> listed.run().workerId()).containsExactly("w-second");
            assertThat(runs.requeue(run.id(), 1).orElseThrow().workerId()).as("requeued: still the last attempt's")
                    .isEqualTo("w-second");
            assertThat(runs.cancelPending(run.id(), "no").orElseThrow().workerId()).isEqualTo("w-second");
        }

        @Test
        void aRunThatNeverStartedHasNoWorker() {
            Run run = pg.insert(aRun());

            assertThat(runs.find(run.id()).orElseThrow().workerId()).isNull();
            assertThat(runs.cancelPending(run.id(), "no").orElseThrow().workerId()).isNull();
        }

        @Test
        void attemptsAreListedOldestFirst() {
            Run run = pg.insert(aRun().withMaxAttempts(3));
            for (int i = 0; i < 2; i++) {
                Run claimed = queue.claim("w" + i, Set.of("noop"), 1, LEASE).get(0);
                queue.acknowledge(List.of(new Acknowledgement(new RunFence(claimed.id(), "w" + i, claimed.attempt()),
                        AttemptOutcome.FAILED, RunStatus.PENDING, Duration.ZERO, "", "exit " + i)));
            }

            assertThat(runs.attempts(run.id())).extracting(Attempt::attempt, Attempt::workerId, Attempt::error)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "w0", "exit 0"),
                            org.assertj.core.groups.Tuple.tuple(2, "w1", "exit 1"));
        }
    }

    @Nested
    class Listing {

        @Test
        void runsAreListedNewestFirstByJobAndStatusWithCursors() {
            Job job = pg.insert(aJob());
            List<Run> ofJob = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ofJob.add(pg.insert(aRun().ofJob(job.id()).createdAt(now.plusMillis(i))));
            }
            Run deadOfJob = pg.insert(aRun().ofJob(job.id()).dead().createdAt(now.plusMillis(10)));
            Run otherJob = pg.insert(aRun().createdAt(now.plusMillis(20)));

            Page<Run> first = runs.list(job.id(), null, 4, null);
            Page<Run> second = runs.list(job.id(), null, 4, first.nextCursor());

            assertThat(first.items()).extracting(Run::id).containsExactly(deadOfJob.id(), ofJob.get(4).id(),
                    ofJob.get(3).id(), ofJob.get(2).id());
            assertThat(second.items()).extracting(Run::id).containsExactly(ofJob.get(1).id(), ofJob.get(0).id());
            assertThat(second.nextCursor()).isNull();
            assertThat(runs.list(job.id(), RunStatus.DEAD, 10, null).items()).containsExactly(deadOfJob);
            assertThat(runs.list(null, RunStatus.PENDING, 1, null).items()).containsExactly(otherJob);
            assertThat(runs.list(null, null, 100, null).items()).hasSize(7);
        }

        @Test
        void aJobIdThatIsNotWellFormedListsNothing() {
            pg.insert(aRun());

            assertThat(runs.list("nope", null, 10, null).items()).isEmpty();
        }

        @Test
        void aMalformedCursorIsRefusedNamingTheCursor() {
            assertThatThrownBy(() -> runs.list(null, null, 10, "%%%"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cursor");
        }

        @Test
        void everyStatusIsCountedZeroWhenItHasNoRuns() {
            pg.insert(aRun());
            pg.insert(aRun());
            pg.insert(aRun().dead());

            assertThat(runs.countByStatus()).containsOnly(
                    entry(RunStatus.WAITING, 0L), entry(RunStatus.PENDING, 2L), entry(RunStatus.RUNNING, 0L), entry(RunStatus.SUCCEEDED, 0L),
                    entry(RunStatus.DEAD, 1L), entry(RunStatus.CANCELLED, 0L));
        }
    }

    @Nested
    class Controls {

        @Test
        void aPendingRunIsCancelledAtOnce() {
            Run pending = pg.insert(aRun().withPriority(3));

            Run cancelled = runs.cancelPending(pending.id(), "cancelled by operator").orElseThrow();

            assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(cancelled.error()).isEqualTo("cancelled by operator");
            assertThat(cancelled.finishedAt()).isEqualTo(now);
            assertThat(runs.cancelPending(pending.id(), "again")).isEmpty();
        }

        @Test
        void cancellingTheRunOfAOneOffJobCompletesTheJob() {
            Job job = pg.insert(aJob());
            Run pending = pg.insert(aRun().ofJob(job.id()));

            runs.cancelPending(pending.id(), "cancelled by operator");

            assertThat(jobs.find(job.id()).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
        }

        @Test
        void aRunningRunIsNotCancelledAtOnceButItsWorkerIsAsked() {
            Run running = pg.insert(aRun().running().leasedBy("w1").leaseUntil(now.plusSeconds(30)));

            assertThat(runs.cancelPending(running.id(), "x")).isEmpty();
            Run asked = runs.requestCancel(running.id()).orElseThrow();

            assertThat(asked.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(asked.cancelRequested()).isTrue();
            assertThat(queue.cancellationsFor("w1")).containsExactly(running.id());
        }

        @Test
        void onlyARunningRunCanBeAskedToStop() {
            Run pending = pg.insert(aRun());

            assertThat(runs.requestCancel(pending.id())).isEmpty();
            assertThat(runs.find(pending.id())).contains(pending);
        }

        @Test
        void aDeadRunIsRequeuedWithAFreshBudgetAndItsHistoryKept() {
            pg.insert(aRun().withMaxAttempts(1));
            Run claimed = queue.claim("w1", Set.of("noop"), 1, LEASE).get(0);
            queue.acknowledge(List.of(new Acknowledgement(new RunFence(claimed.id(), "w1", 1), AttemptOutcome.FAILED,
                    RunStatus.DEAD, null, "out", "exit 2")));
            clock.advance(Duration.ofMinutes(1));

            Run requeued = runs.requeue(claimed.id(), 3).orElseThrow();

            assertThat(requeued.status()).isEqualTo(RunStatus.PENDING);
            assertThat(requeued.attempt()).isEqualTo(1);
            assertThat(requeued.maxAttempts()).isEqualTo(4);
            assertThat(requeued.scheduledFor()).isEqualTo(clock.instant());
            assertThat(requeued.finishedAt()).isNull();
            assertThat(requeued.hasAttemptsLeft()).isTrue();
            assertThat(runs.attempts(claimed.id())).singleElement().extracting(Attempt::outcome)
                    .isEqualTo(AttemptOutcome.FAILED);
            Run again = queue.claim("w2", Set.of("noop"), 1, LEASE).get(0);
            assertThat(again.attempt()).isEqualTo(2);
            assertThat(runs.attempts(claimed.id())).hasSize(2);
        }

        @Test
        void aCancelledRunCanBeRequeuedButASucceededOneCannot() {
            Run cancelled = pg.insert(aRun().cancelled());
            Run succeeded = pg.insert(aRun().succeeded());
            Run pending = pg.insert(aRun());

            assertThat(runs.requeue(cancelled.id(), 1)).hasValueSatisfying(run ->
                    assertThat(run.status()).isEqualTo(RunStatus.PENDING));
            assertThat(runs.requeue(succeeded.id(), 1)).isEmpty();
            assertThat(runs.requeue(pending.id(), 1)).isEmpty();
            assertThatThrownBy(() -> runs.requeue(cancelled.id(), 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
