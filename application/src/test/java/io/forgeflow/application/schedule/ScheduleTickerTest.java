package io.forgeflow.application.schedule;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class ScheduleTickerTest {
    static final Duration MISFIRE_THRESHOLD = Duration.ofSeconds(60);

    final Scenario s = new Scenario(); // 2026-01-15T10:00:00Z
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final List<Integer> missedTicks = Collections.synchronizedList(new ArrayList<>());
    final ScheduleTicker ticker = tickerOver(s.store.jobs(), s.cron);

    ScheduleTicker tickerOver(JobRepository jobs, CronSchedules cron) {
        return new ScheduleTicker(jobs, cron, election, s.signal, MISFIRE_THRESHOLD, missedTicks::add);
    }

    /** An hourly job submitted at 10:00: its first tick is 11:00. */
    Job hourly(String catchUp) {
        return s.submit(aRecurringDraft("0 * * * *").catchingUp(catchUp));
    }

    @Nested
    class Leadership {
        @Test
        void aStandbyCampaignsButFiresNothing() {
            Job job = hourly("skip");
            election.setLeader(false);
            s.setClock("2026-01-15T11:00:05Z");

            assertThat(ticker.runOnce()).isZero();

            assertThat(election.campaigns()).isEqualTo(1);
            assertThat(s.runsOf(job.id())).isEmpty();
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
            assertThat(s.signal.count()).isZero();
        }

        @Test
        void aStandbyThatWinsItsCampaignFiresOnItsNextPass() {
            Job job = hourly("skip");
            election.setLeader(false);
            s.setClock("2026-01-15T11:00:05Z");
            ticker.runOnce();

            election.setWinsCampaigns(true);

            assertThat(ticker.runOnce()).isEqualTo(1);
            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
        }

        @Test
        void aLeaderThatLosesLeadershipMidPassStopsFiring() {
            Job first = hourly("skip");
            Job second = hourly("skip");
            JobRepository losesAfterOneTick = new TickHook(s.store.jobs(), (jobId, fired) -> election.setLeader(false));
            s.setClock("2026-01-15T11:00:05Z");

            int fired = tickerOver(losesAfterOneTick, s.cron).runOnce();

            assertThat(fired).isEqualTo(1);
            assertThat(s.store.allRuns()).hasSize(1);
            Job untouched = s.job(s.store.allRuns().get(0).jobId().equals(first.id()) ? second.id() : first.id());
            assertThat(untouched.nextRunAt()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
        }

        /*
         * Regression test, fixed (ScheduleTicker.runOnce, the `return fired;` when leadership is lost mid-pass): the runs this pass already
         * committed are due now, but the pass returns before signal.runsBecameDue(), so idle workers only find them at
         * their next poll. Fix: signal whenever fired > 0, also on that early return (e.g. break out of both loops and
         * fall through to the signal). See the report.
         */
        @Test
        void runsEnqueuedBeforeLeadershipWasLostStillWakeTheWorkers() {
            hourly("skip");
            hourly("skip");
            JobRepository losesAfterOneTick = new TickHook(s.store.jobs(), (jobId, fired) -> election.setLeader(false));
            s.setClock("2026-01-15T11:00:05Z");

            tickerOver(losesAfterOneTick, s.cron).runOnce();

            assertThat(s.store.allRuns()).hasSize(1);
            assertThat(s.signal.count()).isEqualTo(1);
        }
    }

    @Nested
    class OnTime {
        @Test
        void theLeaderFiresADueTickOnceWithScheduledForTheTickAndWakesTheWorkers() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T11:00:02Z");

            assertThat(ticker.runOnce()).isEqualTo(1);

            Run run = s.onlyRunOf(job.id());
            assertThat(run.status()).isEqualTo(RunStatus.PENDING);
            assertThat(run.scheduledFor()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
            assertThat(run.createdAt()).isEqualTo(s.clock.instant());
            assertThat(run.executor()).isEqualTo(job.spec().executor());
            assertThat(run.maxAttempts()).isEqualTo(job.spec().maxAttempts());
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T12:00:00Z"));
            assertThat(s.job(job.id()).status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(s.signal.count()).isEqualTo(1);
            assertThat(missedTicks).isEmpty();
        }

        @Test
        void nothingDueFiresNothingAndWakesNobody() {
            hourly("skip");
            s.setClock("2026-01-15T10:59:59Z");

            assertThat(ticker.runOnce()).isZero();
            assertThat(s.store.allRuns()).isEmpty();
            assertThat(s.signal.count()).isZero();
        }

        @Test
        void runningTwiceForTheSameTickInsertsOneRun() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T11:00:02Z");

            ticker.runOnce();
            int second = ticker.runOnce();

            assertThat(second).isZero();
            assertThat(s.runsOf(job.id())).hasSize(1);
        }

        @Test
        void twoNodesThatBothBelieveTheyLeadFireATickOnce() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T11:00:02Z");
            JobRepository.DueJobs staleView = s.store.jobs().dueJobs(200);
            ScheduleTicker other = tickerOver(new StaleDueJobs(s.store.jobs(), staleView), s.cron);

            int firstFired = ticker.runOnce();
            int otherFired = other.runOnce();

            assertThat(firstFired + otherFired).isEqualTo(1);
            assertThat(s.runsOf(job.id())).hasSize(1);
        }

        @Test
        void everyTickFiresInTurn() {
            Job job = hourly("skip");
            for (String at : List.of("11:00:01", "12:00:03", "13:00:00")) {
                s.setClock("2026-01-15T" + at + "Z");
                assertThat(ticker.runOnce()).isEqualTo(1);
            }

            assertThat(s.runsOf(job.id())).extracting(Run::scheduledFor).containsExactly(
                    Instant.parse("2026-01-15T13:00:00Z"), Instant.parse("2026-01-15T12:00:00Z"),
                    Instant.parse("2026-01-15T11:00:00Z"));
        }

        @Test
        void aTickLateByLessThanTheMisfireThresholdStillFires() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T11:00:59Z");

            assertThat(ticker.runOnce()).isEqualTo(1);

            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
            assertThat(missedTicks).isEmpty();
        }

        @Test
        void aTickLateByExactlyTheThresholdStillFires() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T11:01:00Z");

            assertThat(ticker.runOnce()).isEqualTo(1);
            assertThat(s.runsOf(job.id())).hasSize(1);
        }

        @Test
        void pausedAndCancelledJobsDoNotFire() {
            Job paused = hourly("skip");
            Job cancelled = hourly("skip");
            s.pauseJob().pause(paused.id());
            s.cancelJob().cancel(cancelled.id());
            s.setClock("2026-01-15T11:00:02Z");

            assertThat(ticker.runOnce()).isZero();
            assertThat(s.store.allRuns()).isEmpty();
        }

        @Test
        void aTickIsEvaluatedInTheJobsZone() {
            Job job = s.submit(aRecurringDraft("0 12 * * *").inZone("Asia/Kolkata")); // 06:30 UTC
            s.setClock("2026-01-16T06:30:01Z");

            assertThat(ticker.runOnce()).isEqualTo(1);

            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(Instant.parse("2026-01-16T06:30:00Z"));
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-17T06:30:00Z"));
        }

        @Test
        void moreDueJobsThanOneBatchAllFireInOnePass() {
            for (int i = 0; i < 450; i++) {
                hourly("skip");
            }
            s.setClock("2026-01-15T11:00:02Z");

            assertThat(ticker.runOnce()).isEqualTo(450);

            assertThat(s.store.allRuns()).hasSize(450);
            assertThat(s.store.jobs().dueJobs(1000).jobs()).isEmpty();
            assertThat(s.signal.count()).as("one wake-up for the whole pass").isEqualTo(1);
        }
    }

    @Nested
    class AfterAnOutage {
        @Test
        void catchUpSkipDropsTheMissedTicksAndContinuesAtTheFirstFutureTick() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T14:20:00Z"); // 11:00, 12:00, 13:00 and 14:00 were missed

            assertThat(ticker.runOnce()).isZero();

            assertThat(s.runsOf(job.id())).isEmpty();
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T15:00:00Z"));
            assertThat(missedTicks).containsExactly(4);
        }

        @Test
        void catchUpSkipStillFiresTheLatestTickWhenItIsMerelyLate() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T14:00:30Z"); // 11:00, 12:00, 13:00 missed; 14:00 only 30 s late

            assertThat(ticker.runOnce()).isEqualTo(1);

            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(Instant.parse("2026-01-15T14:00:00Z"));
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T15:00:00Z"));
            assertThat(missedTicks).containsExactly(3);
        }

        @Test
        void aSingleMissedTickWithCatchUpSkipIsDroppedAndCounted() {
            Job job = hourly("skip");
            s.setClock("2026-01-15T11:30:00Z");

            assertThat(ticker.runOnce()).isZero();

            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T12:00:00Z"));
            assertThat(missedTicks).containsExactly(1);
        }

        @Test
        void catchUpOnceEnqueuesExactlyOneRunForTheLatestMissedTickAndThenContinues() {
            Job job = hourly("once");
            s.setClock("2026-01-15T14:20:00Z");

            assertThat(ticker.runOnce()).isEqualTo(1);

            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(Instant.parse("2026-01-15T14:00:00Z"));
            assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T15:00:00Z"));
            assertThat(missedTicks).as("ticks covered by the one run").containsExactly(3);
            assertThat(s.signal.count()).isEqualTo(1);

            s.setClock("2026-01-15T15:00:01Z");
            assertThat(ticker.runOnce()).isEqualTo(1);
            assertThat(s.runsOf(job.id())).extracting(Run::scheduledFor)
                    .containsExactly(Instant.parse("2026-01-15T15:00:00Z"), Instant.parse("2026-01-15T14:00:00Z"));
        }

        @Test
        void aSingleMissedTickWithCatchUpOnceStillRuns() {
            Job job = hourly("once");
            s.setClock("2026-01-15T11:30:00Z");

            assertThat(ticker.runOnce()).isEqualTo(1);

            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
            assertThat(missedTicks).isEmpty();
        }

        @Test
        void anEverySecondJobAfterADayLongOutageDoesBoundedWorkAndFiresAtMostOneRun() {
            for (String catchUp : List.of("skip", "once")) {
                Scenario world = new Scenario();
                Job job = world.submit(aRecurringDraft("* * * * * *").catchingUp(catchUp));
                world.advance(Duration.ofDays(1));
                CountingCron counting = new CountingCron(world.cron);
                ScheduleTicker afterOutage = new ScheduleTicker(world.store.jobs(), counting,
                        FakeLeaderElection.leading(), world.signal, MISFIRE_THRESHOLD, null);

                int fired = assertTimeoutPreemptively(Duration.ofSeconds(10), afterOutage::runOnce);

                assertThat(fired).as("catch_up %s", catchUp).isLessThanOrEqualTo(1);
                assertThat(world.runsOf(job.id())).as("catch_up %s", catchUp).hasSizeLessThanOrEqualTo(1);
                assertThat(counting.calls.get()).as("cron evaluations for catch_up %s (a day has 86,400 ticks)", catchUp)
                        .isLessThan(5_000);
                assertThat(world.job(job.id()).nextRunAt()).isAfter(world.clock.instant());
            }
        }

        /*
         * Regression test, fixed (ScheduleTicker.runOnce: an exception from one job's fire() ends the whole pass): a job whose schedule
         * cannot be evaluated (here the cron evaluator throws for it, as it would for an expression or zone stored by a
         * newer node during a rolling upgrade, or a cron-utils failure) stays due at the head of the queue, so every
         * later pass dies on it again and no job after it ever fires: one bad row stops the scheduler for everyone.
         * Fix: catch RuntimeException around fire(job), log it (with the job id) and go on with the next job; and end
         * the batch loop when a full batch made no progress, so a batch of failing jobs cannot spin. See the report.
         */
        @Test
        void aJobWhoseScheduleCannotBeEvaluatedDoesNotStopTheOthers() {
            Job poisoned = s.submit(aRecurringDraft("30 10 * * *")); // due 10:30, before the healthy one
            Job healthy = hourly("skip");
            CronSchedules failsForOneExpression = new CountingCron(s.cron) {
                @Override
                public Optional<Instant> nextAfter(String expression, ZoneId zone, Instant after) {
                    if (expression.equals("30 10 * * *")) {
                        throw new IllegalStateException("cannot evaluate " + expression);
                    }
                    return super.nextAfter(expression, zone, after);
                }
            };
            s.setClock("2026-01-15T11:00:05Z");

            catchThrowable(tickerOver(s.store.jobs(), failsForOneExpression)::runOnce);

            assertThat(s.runsOf(healthy.id())).hasSize(1);
            assertThat(s.runsOf(poisoned.id())).isEmpty();
        }
    }

    /** Counts nextAfter calls, delegating to the real evaluator. */
    static class CountingCron implements CronSchedules {
        final CronSchedules delegate;
        final AtomicInteger calls = new AtomicInteger();

        CountingCron(CronSchedules delegate) {
            this.delegate = delegate;
        }

        @Override
        public void validate(String expression) {
            delegate.validate(expression);
        }

        @Override
        public Optional<Instant> nextAfter(String expression, ZoneId zone, Instant after) {
            calls.incrementAndGet();
            return delegate.nextAfter(expression, zone, after);
        }
    }

    /** Delegates, and tells {@code afterFireTick} about each fireTick once it has been applied. */
    static class TickHook implements JobRepository {
        final JobRepository delegate;
        final BiConsumer<String, Boolean> afterFireTick;

        TickHook(JobRepository delegate, BiConsumer<String, Boolean> afterFireTick) {
            this.delegate = delegate;
            this.afterFireTick = afterFireTick;
        }

        @Override
        public JobCreation create(Job job, Run firstRun) {
            return delegate.create(job, firstRun);
        }

        @Override
        public Optional<Job> find(String id) {
            return delegate.find(id);
        }

        @Override
        public Page<Job> listMatching(io.forgeflow.domain.port.JobFilter filter, int limit, String cursor) {
            return delegate.listMatching(filter, limit, cursor);
        }

        @Override
        public Optional<JobChange> changeStatus(String id, JobStatus expected, JobStatus next, Instant nextRunAt,
                                          RunCancellation cancellation, Run insert) {
            return delegate.changeStatus(id, expected, next, nextRunAt, cancellation, insert);
        }

        @Override
        public Optional<Job> update(String id, Instant expectedUpdatedAt, io.forgeflow.domain.job.JobSpec spec,
                                    Instant nextRunAt, PendingRuns pendingRuns, Instant rescheduleTo) {
            return delegate.update(id, expectedUpdatedAt, spec, nextRunAt, pendingRuns, rescheduleTo);
        }

        @Override
        public Optional<JobChange> delete(String id, JobStatus expected, boolean cancelRunning) {
            return delegate.delete(id, expected, cancelRunning);
        }

        @Override
        public boolean purge(String id) {
            return delegate.purge(id);
        }

        @Override
        public DueJobs dueJobs(int limit) {
            return delegate.dueJobs(limit);
        }

        @Override
        public TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant newNextRunAt, Run run) {
            TickOutcome outcome = delegate.fire(jobId, expectedNextRunAt, newNextRunAt, run);
            afterFireTick.accept(jobId, outcome != TickOutcome.NOT_ADVANCED);
            return outcome;
        }
    }

    /** Serves a due-jobs snapshot read before another node fired them, once; then the truth. */
    static final class StaleDueJobs extends TickHook {
        private DueJobs stale;

        StaleDueJobs(JobRepository delegate, DueJobs stale) {
            super(delegate, (id, fired) -> { });
            this.stale = stale;
        }

        @Override
        public synchronized DueJobs dueJobs(int limit) {
            DueJobs answer = stale != null ? stale : super.dueJobs(limit);
            stale = null;
            return answer;
        }
    }
}
