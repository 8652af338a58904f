package io.forgeflow.server;

import io.forgeflow.adapter.postgres.AdvisoryLockLeaderElection;
import io.forgeflow.adapter.postgres.PostgresJobRepository;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.schedule.CronUtilsSchedules;
import io.forgeflow.application.schedule.ScheduleTicker;
import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two schedulers on separate connections campaign for one advisory lock; the leader's connection is killed while
 * ticks are due. Over many ticks every tick is enqueued exactly once: no double fire, no lost tick.
 */
class SchedulerHandoverIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final MutableClock clock = MutableClock.at("2026-03-01T00:00:00Z");
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
    final CronUtilsSchedules cron = new CronUtilsSchedules();
    final AdvisoryLockLeaderElection electionA = new AdvisoryLockLeaderElection(pg.connectionSupplier());
    final AdvisoryLockLeaderElection electionB = new AdvisoryLockLeaderElection(pg.connectionSupplier());
    final ScheduleTicker tickerA = ticker(electionA);
    final ScheduleTicker tickerB = ticker(electionB);

    ScheduleTicker ticker(AdvisoryLockLeaderElection election) {
        return new ScheduleTicker(jobs, cron, election, new CountingWorkSignal(), Duration.ofSeconds(60), null);
    }

    @AfterEach
    void close() {
        electionA.close();
        electionB.close();
    }

    @Test
    void killingTheLeadersConnectionHandsOverWithoutADoubleOrALostTick() {
        Instant start = clock.instant();
        Instant firstTick = start.plusSeconds(1);
        Job job = pg.insert(new Job("0190e0b4-7c3a-7d2e-8f00-000000000001", new JobSpec("every-second", "shell",
                Map.of("command", "true"), "* * * * * *", null, "UTC", 5, 3, 60, CatchUp.SKIP, null),
                JobStatus.ACTIVE, firstTick, start, start));

        int ticks = 120;
        int kills = 0;
        int handovers = 0;
        boolean aLed = false;
        for (int i = 1; i <= ticks; i++) {
            clock.advance(Duration.ofSeconds(1));
            if (i % 20 == 0) {
                terminateLeaderBackend();
                kills++;
            }
            // both campaign every pass, in alternating order, as two nodes would
            if (i % 2 == 0) {
                tickerA.runOnce();
                tickerB.runOnce();
            } else {
                tickerB.runOnce();
                tickerA.runOnce();
            }
            assertThat(electionA.isLeader() && electionB.isLeader()).as("two leaders at tick " + i).isFalse();
            assertThat(electionA.isLeader() || electionB.isLeader()).as("no leader at tick " + i).isTrue();
            if (i > 1 && aLed != electionA.isLeader()) {
                handovers++;
            }
            aLed = electionA.isLeader();
        }

        List<Instant> fired = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT scheduled_for FROM runs WHERE job_id = CAST(:id AS uuid) ORDER BY scheduled_for")
                .bind("id", job.id()).mapTo(Timestamp.class).list()).stream().map(Timestamp::toInstant).toList();
        assertThat(kills).isEqualTo(ticks / 20);
        // the killed leader may win the lock back on its next campaign; what must hold is that someone always leads
        // and that leadership did move
        assertThat(handovers).as("leadership moved").isPositive();
        assertThat(fired).doesNotHaveDuplicates();
        assertThat(fired).hasSize(ticks);
        for (int i = 0; i < fired.size(); i++) {
            assertThat(fired.get(i)).isEqualTo(firstTick.plusSeconds(i));
        }
    }

    @Test
    void twoTickersThatBothBelieveTheyLeadStillFireATickOnce() {
        Instant start = clock.instant();
        Job job = pg.insert(new Job("0190e0b4-7c3a-7d2e-8f00-000000000002", new JobSpec("every-second", "shell",
                Map.of("command", "true"), "* * * * * *", null, "UTC", 5, 3, 60, CatchUp.SKIP, null),
                JobStatus.ACTIVE, start.plusSeconds(1), start, start));
        io.forgeflow.application.testkit.FakeLeaderElection always = io.forgeflow.application.testkit.FakeLeaderElection.leading();
        io.forgeflow.application.testkit.FakeLeaderElection alsoAlways = io.forgeflow.application.testkit.FakeLeaderElection.leading();
        ScheduleTicker a = new ScheduleTicker(jobs, cron, always, new CountingWorkSignal(), Duration.ofSeconds(60), null);
        ScheduleTicker b = new ScheduleTicker(jobs, cron, alsoAlways, new CountingWorkSignal(), Duration.ofSeconds(60), null);
        for (int i = 0; i < 30; i++) {
            clock.advance(Duration.ofSeconds(1));
            a.runOnce();
            b.runOnce();
        }
        long runs = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM runs WHERE job_id = CAST(:id AS uuid)")
                .bind("id", job.id()).mapTo(Long.class).one());
        long distinct = pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(DISTINCT scheduled_for) FROM runs WHERE job_id = CAST(:id AS uuid)")
                .bind("id", job.id()).mapTo(Long.class).one());
        assertThat(runs).isEqualTo(30).isEqualTo(distinct);
    }

    private void terminateLeaderBackend() {
        List<Integer> pids = pg.jdbi().withHandle(h -> h.createQuery("SELECT l.pid FROM pg_locks l "
                + "JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND l.granted "
                + "AND d.datname = current_database()").mapTo(Integer.class).list());
        assertThat(pids).as("exactly one connection holds the leader's lock").hasSize(1);
        pg.jdbi().useHandle(h -> h.createQuery("SELECT pg_terminate_backend(:pid)").bind("pid", pids.get(0))
                .mapTo(Boolean.class).one());
        // pg_terminate_backend only signals: wait until the backend is gone and its lock released
        WorkersOnPostgresIT.await(Duration.ofSeconds(10), () -> pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = :pid").bind("pid", pids.get(0)).mapTo(Long.class).one()) == 0);
    }
}
