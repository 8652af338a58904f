package io.forgeflow.application.schedule;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;

/** How long the scheduler waits between passes: its tick, or less when a cron tick is due sooner. */
class ScheduleTickerTimingTest {
    static final Duration TICK = Duration.ofSeconds(1);

    final Scenario s = new Scenario(); // 2026-01-15T10:00:00Z
    final FakeLeaderElection election = FakeLeaderElection.leading();

    ScheduleTicker ticker(JobRepository jobs) {
        return new ScheduleTicker(jobs, s.cron, election, s.signal, Duration.ofSeconds(60), null);
    }

    final ScheduleTicker ticker = ticker(s.store.jobs());

    @Test
    void aTickDueBeforeTheNextPassIsWaitedForExactly() {
        s.submit(aRecurringDraft("0 * * * *")); // next tick 11:00
        s.setClock("2026-01-15T10:59:59.700Z");
        ticker.runOnce();

        assertThat(ticker.untilNextPass(TICK)).isEqualTo(Duration.ofMillis(300));
    }

    @Test
    void aTickDueAfterTheNextPassLeavesTheSchedulerTick() {
        s.submit(aRecurringDraft("0 * * * *"));
        ticker.runOnce();

        assertThat(ticker.untilNextPass(TICK)).isEqualTo(TICK);
    }

    @Test
    void withoutRecurringJobsTheSchedulerTicks() {
        ticker.runOnce();

        assertThat(ticker.untilNextPass(TICK)).isEqualTo(TICK);
    }

    @Test
    void aPassThatFiresATickWaitsForTheFollowingOne() {
        Job job = s.submit(aRecurringDraft("* * * * *")); // every minute: 10:01, 10:02, ...
        s.setClock("2026-01-15T10:01:59.900Z");

        assertThat(ticker.runOnce()).isEqualTo(1);

        assertThat(s.job(job.id()).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T10:02:00Z"));
        assertThat(ticker.untilNextPass(TICK)).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aStandbyWaitsTheWholeTickAndDoesNotAsk() {
        s.submit(aRecurringDraft("0 * * * *"));
        s.setClock("2026-01-15T10:59:59.700Z");
        election.setLeader(false);
        int[] asked = {0};
        ScheduleTicker standby = ticker(new Delegating(s.store.jobs()) {
            @Override
            public Optional<Duration> nextTickIn() {
                asked[0]++;
                return super.nextTickIn();
            }
        });
        standby.runOnce();

        assertThat(standby.untilNextPass(TICK)).isEqualTo(TICK);
        assertThat(asked[0]).isZero();
    }

    @Test
    void aTickStillDueAfterThePassIsRetriedAtTheTicksPaceNotInABusyLoop() {
        JobRepository alwaysDue = new Delegating(s.store.jobs()) {
            @Override
            public Optional<Duration> nextTickIn() {
                return Optional.of(Duration.ofMillis(-250)); // a tick the pass could not fire (its job failed)
            }
        };
        ScheduleTicker stuck = ticker(alwaysDue);
        stuck.runOnce();

        assertThat(stuck.untilNextPass(TICK)).isEqualTo(TICK);
    }

    @Test
    void whenTheRepositoryCannotTellTheSchedulerTicks() {
        ScheduleTicker blind = ticker(new Delegating(s.store.jobs()) {
            @Override
            public Optional<Duration> nextTickIn() {
                throw new IllegalStateException("database unreachable");
            }
        });
        blind.runOnce();

        assertThat(blind.untilNextPass(TICK)).isEqualTo(TICK);
    }

    /** A repository that forwards everything to another one. */
    static class Delegating implements JobRepository {
        private final JobRepository delegate;

        Delegating(JobRepository delegate) {
            this.delegate = delegate;
        }

        @Override
        public JobCreation create(Job job, io.forgeflow.domain.run.Run firstRun) {
            return delegate.create(job, firstRun);
        }

        @Override
        public Optional<Job> find(String id) {
            return delegate.find(id);
        }

        @Override
        public io.forgeflow.domain.port.Page<Job> listMatching(io.forgeflow.domain.port.JobFilter filter, int limit,
                                                       String cursor) {
            return delegate.listMatching(filter, limit, cursor);
        }

        @Override
        public Optional<JobChange> changeStatus(String id, io.forgeflow.domain.job.JobStatus expected,
                                          io.forgeflow.domain.job.JobStatus next, Instant nextRunAt,
                                          RunCancellation cancellation, io.forgeflow.domain.run.Run insert) {
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
        public Optional<Duration> nextTickIn() {
            return delegate.nextTickIn();
        }

        @Override
        public TickOutcome fire(String jobId, Instant expectedNextRunAt, Instant newNextRunAt,
                                io.forgeflow.domain.run.Run run) {
            return delegate.fire(jobId, expectedNextRunAt, newNextRunAt, run);
        }
    }
}
