package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.schedule.ScheduleTicker;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

class ResumeJobTest {
    final Scenario s = new Scenario();
    final ResumeJob resume = s.resumeJob();

    @Nested
    class ARecurringJob {
        @Test
        void withCatchUpSkipContinuesAtTheNextFutureTick() {
            Job job = s.submit(aRecurringDraft("0 * * * *")); // next 11:00
            s.setClock("2026-01-15T10:30:00Z");
            s.pauseJob().pause(job.id());
            s.setClock("2026-01-15T14:20:00Z");

            Job resumed = resume.resume(job.id());

            assertThat(resumed.status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(resumed.nextRunAt()).isEqualTo(Instant.parse("2026-01-15T15:00:00Z"));
            assertThat(resumed.updatedAt()).isEqualTo(s.clock.instant());
            assertThat(s.runsOf(job.id())).isEmpty();
        }

        @Test
        void withCatchUpOnceAfterMissedTicksResumesAtTheFirstMissedTick() {
            Job job = s.submit(aRecurringDraft("0 * * * *").catchingUp("once"));
            s.setClock("2026-01-15T10:30:00Z");
            s.pauseJob().pause(job.id());
            s.setClock("2026-01-15T14:20:00Z");

            Job resumed = resume.resume(job.id());

            assertThat(resumed.nextRunAt()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
        }

        @Test
        void withCatchUpOnceTheSchedulerThenEnqueuesOneRunForTheMissedTicksAndGoesOn() {
            Job job = s.submit(aRecurringDraft("0 * * * *").catchingUp("once"));
            s.setClock("2026-01-15T10:30:00Z");
            s.pauseJob().pause(job.id());
            s.setClock("2026-01-15T14:20:00Z");
            resume.resume(job.id());
            ScheduleTicker ticker = new ScheduleTicker(s.store.jobs(), s.cron, FakeLeaderElection.leading(), s.signal,
                    Duration.ofSeconds(60), null);

            assertThat(ticker.runOnce()).isEqualTo(1);

            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(Instant.parse("2026-01-15T14:00:00Z"));
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T15:00:00Z"));
        }

        @Test
        void withCatchUpOnceButNoTickMissedContinuesAtTheNextTick() {
            Job job = s.submit(aRecurringDraft("0 * * * *").catchingUp("once"));
            s.setClock("2026-01-15T10:30:00Z");
            s.pauseJob().pause(job.id());
            s.setClock("2026-01-15T10:50:00Z");

            assertThat(resume.resume(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
        }

        @Test
        void inItsOwnZoneContinuesAtItsZonesNextTick() {
            Job job = s.submit(aRecurringDraft("0 9 * * *").inZone("America/New_York"));
            s.pauseJob().pause(job.id());
            s.setClock("2026-01-20T15:00:00Z"); // 10:00 in New York (-05:00)

            assertThat(resume.resume(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-21T14:00:00Z"));
        }

        @Test
        void enqueuesNothingAndWakesNobody() {
            Job job = s.submit(aRecurringDraft("0 * * * *"));
            s.pauseJob().pause(job.id());

            resume.resume(job.id());

            assertThat(s.runsOf(job.id())).isEmpty();
            assertThat(s.signal.count()).isZero();
        }
    }

    @Nested
    class AOneOffJob {
        @Test
        void whoseRunThePauseCancelledGetsANewPendingRunDueNowAndWakesTheWorkers() {
            Job job = s.submit(aDraft());
            Run cancelled = s.onlyRunOf(job.id());
            s.pauseJob().pause(job.id());
            s.advance(Duration.ofMinutes(10));
            s.signal.reset();

            Job resumed = resume.resume(job.id());

            assertThat(resumed.status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(resumed.nextRunAt()).isEqualTo(s.clock.instant());
            List<Run> runs = s.runsOf(job.id());
            assertThat(runs).hasSize(2);
            Run fresh = runs.get(0);
            assertThat(fresh.id()).isNotEqualTo(cancelled.id());
            assertThat(fresh.status()).isEqualTo(RunStatus.PENDING);
            assertThat(fresh.scheduledFor()).isEqualTo(s.clock.instant());
            assertThat(fresh.attempt()).isZero();
            assertThat(fresh.maxAttempts()).isEqualTo(job.spec().maxAttempts());
            assertThat(s.run(cancelled.id()).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(s.signal.count()).isEqualTo(1);
        }

        @Test
        void withARunAtStillAheadGetsItsRunThenAndLetsTheWorkersSleep() {
            Instant runAt = Instant.parse("2026-01-16T06:00:00Z");
            Job job = s.submit(aDraft().runAt(runAt));
            s.pauseJob().pause(job.id());
            s.advance(Duration.ofHours(1));

            Job resumed = resume.resume(job.id());

            assertThat(resumed.nextRunAt()).isEqualTo(runAt);
            assertThat(s.runsOf(job.id()).get(0).scheduledFor()).isEqualTo(runAt);
            assertThat(s.runsOf(job.id()).get(0).status()).isEqualTo(RunStatus.PENDING);
            assertThat(s.signal.count()).isZero();
        }

        @Test
        void withARunAtThatPassedWhilePausedGetsARunDueNow() {
            Job job = s.submit(aDraft().runAt(Instant.parse("2026-01-15T11:00:00Z")));
            s.pauseJob().pause(job.id());
            s.setClock("2026-01-15T12:00:00Z");

            resume.resume(job.id());

            assertThat(s.runsOf(job.id()).get(0).scheduledFor()).isEqualTo(s.clock.instant());
            assertThat(s.signal.count()).isEqualTo(1);
        }

        @Test
        void whoseRunIsStillRunningGetsNoSecondRun() {
            Job job = s.submit(aDraft());
            s.claim("w1");
            s.pauseJob().pause(job.id());

            Job resumed = resume.resume(job.id());

            assertThat(resumed.status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(s.onlyRunOf(job.id()).status()).isEqualTo(RunStatus.RUNNING);
        }

        @Test
        void storesItsNewRunInTheSameTransactionAsTheStatusChange() {
            Job job = s.submit(aDraft());
            s.pauseJob().pause(job.id());
            RunRepository readOnlyRuns = new ReadOnlyRuns(s.store.runs());

            new ResumeJob(s.store.jobs(), readOnlyRuns, s.cron, s.signal, s.clock).resume(job.id());

            assertThat(s.runsOf(job.id())).extracting(Run::status)
                    .containsExactly(RunStatus.PENDING, RunStatus.CANCELLED);
        }

        @Test
        void aResumeThatLosesARaceCreatesNoRun() {
            InterleavingJobRepository jobs = new InterleavingJobRepository(s.store.jobs());
            Job job = s.submit(aDraft());
            s.pauseJob().pause(job.id());
            jobs.beforeNextChangeStatus(() -> s.cancelJob().cancel(job.id()));
            s.signal.reset();

            assertThatThrownBy(() -> new ResumeJob(jobs, s.store.runs(), s.cron, s.signal, s.clock).resume(job.id()))
                    .isInstanceOf(ConflictException.class);

            assertThat(s.onlyRunOf(job.id()).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.CANCELLED);
            assertThat(s.signal.count()).isZero();
        }

        /*
         * Regression test, fixed (ResumeJob.resume, the one-off branch, the `live` check): a one-off job paused while its run was running
         * stays PAUSED when that run succeeds (acknowledge only completes ACTIVE jobs, and PAUSED cannot become
         * COMPLETED), and resuming it then enqueues a second run because no run is pending or running. The job's
         * work is done a second time, although ResumeJob's Javadoc promises a new run only to a one-off job "whose run
         * the pause cancelled". Expected: no new run, and the job ends COMPLETED (its run ended). See the report.
         */
        @Test
        void whoseRunSucceededWhilePausedIsNotRunAgain() {
            Job job = s.submit(aDraft());
            Run running = s.claim("w1");
            s.pauseJob().pause(job.id());
            s.end(running, RunStatus.SUCCEEDED);

            catchThrowable(() -> resume.resume(job.id())); // completing the job or refusing (409) are both fine

            assertThat(s.runsOf(job.id())).as("runs of the one-off job").extracting(Run::status)
                    .containsExactly(RunStatus.SUCCEEDED);
            assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.COMPLETED);
        }
    }

    @Test
    void resumingAnActiveJobChangesNothing() {
        Job job = s.submit(aRecurringDraft("0 * * * *"));
        s.advance(Duration.ofMinutes(5));

        assertThat(resume.resume(job.id())).isEqualTo(job);
        assertThat(s.job(job.id())).isEqualTo(job);
    }

    @Test
    void resumingACancelledJobIsAConflict() {
        Job job = s.submit(aRecurringDraft("0 * * * *"));
        s.cancelJob().cancel(job.id());

        assertThatThrownBy(() -> resume.resume(job.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("cancelled");
        assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.CANCELLED);
    }

    @Test
    void resumingACompletedJobIsAConflict() {
        Job job = s.submit(aDraft());
        s.claimAndEnd(s.onlyRunOf(job.id()), RunStatus.DEAD);

        assertThatThrownBy(() -> resume.resume(job.id())).isInstanceOf(ConflictException.class);
        assertThat(s.runsOf(job.id())).hasSize(1);
    }

    @Test
    void resumingAnUnknownJobIsNotFound() {
        assertThatThrownBy(() -> resume.resume(Ids.newId(s.clock.instant()))).isInstanceOf(NotFoundException.class);
    }

    /** Reads runs but fails the test on any write: ResumeJob must store its run through changeStatus. */
    static final class ReadOnlyRuns implements RunRepository {
        private final RunRepository delegate;

        ReadOnlyRuns(RunRepository delegate) {
            this.delegate = delegate;
        }

        @Override
        public Run insert(Run run) {
            throw new AssertionError("a run was inserted outside the status change's transaction");
        }

        @Override
        public Optional<Run> find(String id) {
            return delegate.find(id);
        }

        @Override
        public List<Attempt> attempts(String runId) {
            return delegate.attempts(runId);
        }

        @Override
        public Page<Run> listMatching(io.forgeflow.domain.port.RunFilter filter, int limit, String cursor) {
            return delegate.listMatching(filter, limit, cursor);
        }

        @Override
        public Map<RunStatus, Long> countByStatus(String tenant) {
            return delegate.countByStatus(tenant);
        }

        @Override
        public Optional<Run> cancelPending(String id, String reason) {
            throw new AssertionError("unexpected write");
        }

        @Override
        public Optional<Run> requestCancel(String id) {
            throw new AssertionError("unexpected write");
        }

        @Override
        public Optional<Run> requeue(String id, int attemptBudget) {
            throw new AssertionError("unexpected write");
        }
    }
}
