package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.Run;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.ds.PGSimpleDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;

class PostgresRetentionIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration RETENTION = Duration.ofDays(14);

    final TestClock clock = TestClock.at("2025-06-01T00:00:00Z");
    final Instant now = clock.instant();
    final Instant old = now.minus(RETENTION).minusSeconds(1);
    final Instant recent = now.minus(RETENTION).plusSeconds(60);
    final PostgresRetention retention = new PostgresRetention(pg.jdbi(), clock);

    @Test
    void tablesThatChangedEnoughAreAnalyzedAndAreThenFreshUntilTheyChangeAgain() {
        // a database of its own: the shared one's statistics also count other tests' writes, which idle connections
        // report up to seconds later, so an untouched table there could turn stale between two statements
        Jdbi own = ownMigratedDatabase();
        PostgresRetention ownRetention = new PostgresRetention(own, clock);
        own.useHandle(h -> {
            h.execute("INSERT INTO jobs (id, name, executor, payload, status, next_run_at) VALUES "
                    + "(gen_random_uuid(), 'one', 'shell', '{\"command\": \"true\"}', 'active', now())");
            h.execute("ANALYZE jobs, runs, run_attempts");
            copyTheJob(h, 300);
        });

        assertThat(ownRetention.analyzeStale()).containsExactly("jobs");
        boolean analyzed = own.withHandle(h -> h.select("SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables "
                + "WHERE relname = 'jobs'").mapTo(Boolean.class).one());
        assertThat(analyzed).isTrue();
        assertThat(ownRetention.analyzeStale()).as("fresh after the analyze").isEmpty();
    }

    private static Jdbi ownMigratedDatabase() {
        PGSimpleDataSource db = (PGSimpleDataSource) pg.createEmptyDatabase();
        PostgresMigrations.migrate(db, PostgresSchema.DEFAULT);
        PGSimpleDataSource inSchema = new PGSimpleDataSource();
        inSchema.setURL(db.getURL());
        inSchema.setUser(db.getUser());
        inSchema.setPassword(db.getPassword());
        inSchema.setCurrentSchema(PostgresSchema.DEFAULT);
        return PostgresJdbi.create(inSchema);
    }

    @Test
    void refreshingStatisticsIsLeftToAutovacuumWhereItIsOn() {
        analyzedThenGrown();
        boolean autovacuum = pg.jdbi().withHandle(h -> h.select("SHOW autovacuum").mapTo(String.class).one())
                .equals("on");

        if (autovacuum) {
            assertThat(retention.refreshStatistics()).isEmpty();
        } else {
            assertThat(retention.refreshStatistics()).contains("jobs");
        }
    }

    /**
     * One job, statistics gathered, then 300 copies of it, counted in the statistics before this returns (the
     * connection's counts flushed): jobs is stale, by autovacuum's rule.
     */
    private static void analyzedThenGrown() {
        pg.insert(aJob());
        try (Handle h = pg.jdbi().open()) {
            h.execute("ANALYZE jobs, runs, run_attempts");
            copyTheJob(h, 300);
        }
    }

    private static void copyTheJob(Handle h, int n) {
        // the record in a LATERAL, once per row: (f(...)).* would call f once per column
        h.execute("INSERT INTO jobs SELECT c.* FROM jobs j, generate_series(1, ?) g, "
                + "LATERAL jsonb_populate_record(NULL::jobs, to_jsonb(j) || jsonb_build_object("
                + "'id', gen_random_uuid(), 'idempotency_key', null, 'copy', g)) c", n);
        h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
        h.select("SELECT 1").mapTo(Integer.class).one();
    }

    @Test
    void deletesOnlyFinishedRunsWhoseFinishIsOlderThanTheRetentionWithTheirAttempts() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run oldSucceeded = pg.insert(aRun().ofJob(job.id()).dueAt(old).succeeded());
        Run oldDead = pg.insert(aRun().ofJob(job.id()).dueAt(old).dead());
        Run oldCancelled = pg.insert(aRun().ofJob(job.id()).dueAt(old).cancelled());
        Run recentSucceeded = pg.insert(aRun().ofJob(job.id()).dueAt(recent).succeeded());
        Run oldPending = pg.insert(aRun().ofJob(job.id()).dueAt(old));
        Run oldRunning = pg.insert(aRun().ofJob(job.id()).dueAt(old).running().leasedBy("w1").leaseUntil(now));
        attempt(oldSucceeded, old);
        attempt(oldDead, old);
        attempt(recentSucceeded, recent);

        int deleted = retention.deleteFinishedRuns(RETENTION, 1_000);

        assertThat(deleted).isEqualTo(3);
        assertThat(runIds()).containsExactlyInAnyOrder(recentSucceeded.id(), oldPending.id(), oldRunning.id());
        assertThat(attemptRunIds()).containsExactlyInAnyOrder(recentSucceeded.id(), oldRunning.id());
        assertThat(runIds()).doesNotContain(oldSucceeded.id(), oldDead.id(), oldCancelled.id());
        assertThat(jobIds()).containsExactly(job.id());
    }

    @Test
    void deletesInBatchesOfTheGivenSizeOldestFirst() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            runs.add(aRun().ofJob(job.id()).dueAt(old.minusSeconds(25 - i)).succeeded().build());
        }
        pg.insertAll(runs);

        assertThat(retention.deleteFinishedRuns(RETENTION, 10)).isEqualTo(10);
        assertThat(runIds()).hasSize(15).doesNotContain(runs.get(0).id(), runs.get(9).id()).contains(runs.get(10).id());
        assertThat(retention.deleteFinishedRuns(RETENTION, 10)).isEqualTo(10);
        assertThat(retention.deleteFinishedRuns(RETENTION, 10)).isEqualTo(5);
        assertThat(retention.deleteFinishedRuns(RETENTION, 10)).isZero();
        assertThat(runIds()).isEmpty();
    }

    @Test
    void skipsRunsThatAnotherTransactionHoldsInsteadOfWaiting() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run held = pg.insert(aRun().ofJob(job.id()).dueAt(old).dead());
        Run free = pg.insert(aRun().ofJob(job.id()).dueAt(old).dead());

        try (Handle other = pg.jdbi().open()) {
            other.begin();
            other.createQuery("SELECT id FROM runs WHERE id = CAST(:id AS uuid) FOR UPDATE")
                    .bind("id", held.id()).mapTo(String.class).one();

            assertThat(retention.deleteFinishedRuns(RETENTION, 1_000)).isEqualTo(1);
            other.rollback();
        }
        assertThat(runIds()).containsExactly(held.id());
        assertThat(runIds()).doesNotContain(free.id());
    }

    @Test
    void deletesJobsThatCanNeverRunAgainOnceTheyHaveNoRunsLeftAndAreOldEnough() {
        Job completedOld = pg.insert(aJob().withStatus(JobStatus.COMPLETED).createdAt(old));
        Job cancelledOld = pg.insert(aJob().recurring("* * * * *", null).withStatus(JobStatus.CANCELLED).createdAt(old));
        Job completedRecent = pg.insert(aJob().withStatus(JobStatus.COMPLETED).createdAt(recent));
        Job completedWithRun = pg.insert(aJob().withStatus(JobStatus.COMPLETED).createdAt(old));
        pg.insert(aRun().ofJob(completedWithRun.id()).dueAt(recent).succeeded());
        Job activeOld = pg.insert(aJob().recurring("* * * * *", now).createdAt(old));
        Job pausedOld = pg.insert(aJob().recurring("* * * * *", now).paused().createdAt(old));

        int deleted = retention.deleteFinishedJobs(RETENTION, 1_000);

        assertThat(deleted).isEqualTo(2);
        assertThat(jobIds()).containsExactlyInAnyOrder(completedRecent.id(), completedWithRun.id(), activeOld.id(),
                pausedOld.id());
        assertThat(jobIds()).doesNotContain(completedOld.id(), cancelledOld.id());
    }

    @Test
    void aDeletedJobsTombstoneGoesOnceItsRunsAreGoneAndItIsOldEnough() {
        Job deletedOld = pg.insert(aJob().recurring("* * * * *", null).withStatus(JobStatus.DELETED).createdAt(old));
        Job deletedWithRun = pg.insert(aJob().withStatus(JobStatus.DELETED).createdAt(old));
        pg.insert(aRun().ofJob(deletedWithRun.id()).dueAt(recent).succeeded());
        Job deletedRecent = pg.insert(aJob().withStatus(JobStatus.DELETED).createdAt(recent));

        assertThat(retention.deleteFinishedJobs(RETENTION, 1_000)).isEqualTo(1);

        assertThat(jobIds()).containsExactlyInAnyOrder(deletedWithRun.id(), deletedRecent.id());
    }

    @Test
    void aJobWhoseLastRunIsDeletedGoesInALaterPass() {
        Job job = pg.insert(aJob().withStatus(JobStatus.COMPLETED).createdAt(old));
        pg.insert(aRun().ofJob(job.id()).dueAt(old).succeeded());

        assertThat(retention.deleteFinishedJobs(RETENTION, 1_000)).isZero();
        assertThat(retention.deleteFinishedRuns(RETENTION, 1_000)).isEqualTo(1);
        assertThat(retention.deleteFinishedJobs(RETENTION, 1_000)).isEqualTo(1);
        assertThat(jobIds()).isEmpty();
    }

    void attempt(Run run, Instant at) {
        pg.jdbi().useHandle(h -> h.createUpdate("INSERT INTO run_attempts (run_id, attempt, worker_id, started_at, "
                        + "finished_at, outcome) VALUES (CAST(:id AS uuid), 1, 'w1', :at, :at, 'failed')")
                .bind("id", run.id()).bind("at", at).execute());
    }

    List<String> runIds() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT CAST(id AS text) FROM runs").mapTo(String.class).list());
    }

    List<String> attemptRunIds() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT DISTINCT CAST(run_id AS text) FROM run_attempts")
                .mapTo(String.class).list());
    }

    List<String> jobIds() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT CAST(id AS text) FROM jobs").mapTo(String.class).list());
    }
}
