package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.RunFilter;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 46: finished runs move, with their attempts, into run_history (partitions of a day or more by finished_at)
 * and stay readable everywhere a finished run is read; retention drops whole partitions.
 */
class RunHistoryIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migratedAlone();

    static final Duration AFTER = Duration.ofHours(1);
    static final Duration KEEP = Duration.ofDays(14);
    /** At most this many partitions of each history table, whatever the retention (and the days ahead). */
    static final int MAX_PARTITIONS = 32;

    final TestClock clock = TestClock.at("2025-06-01T12:00:00Z");
    final Instant now = clock.instant();
    final Instant twoHoursAgo = now.minus(Duration.ofHours(2));
    final PostgresRetention retention = new PostgresRetention(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);

    @Test
    void aMovedRunIsReadByIdWithItsAttemptsInListsAndInCountsAsBefore() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run run = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).succeeded().withOutput("done"));
        attempt(run, "w7");
        Run before = runs.find(run.id()).orElseThrow();
        List<Attempt> attemptsBefore = runs.attempts(run.id());
        long succeededBefore = runs.countByStatus(null).get(RunStatus.SUCCEEDED);

        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(1);

        assertThat(count("runs")).isZero();
        assertThat(count("run_attempts")).isZero();
        assertThat(count("run_history")).isEqualTo(1);
        assertThat(count("attempt_history")).isEqualTo(1);
        assertThat(runs.find(run.id())).contains(before);
        assertThat(before.workerId()).isEqualTo("w7");
        assertThat(runs.attempts(run.id())).isEqualTo(attemptsBefore);
        assertThat(runs.listMatching(RunFilter.of(job.id(), null), 10, null).items()).containsExactly(before);
        assertThat(runs.listMatching(RunFilter.of(null, RunStatus.SUCCEEDED), 10, null).items()).containsExactly(before);
        assertThat(runs.listForDisplayMatching(RunFilter.ALL, 10, null, new io.forgeflow.domain.port.ListBudget(1 << 20))
                .items()).extracting(listed -> listed.run().id()).containsExactly(run.id());
        assertThat(runs.countByStatus(null).get(RunStatus.SUCCEEDED)).isEqualTo(succeededBefore);
    }

    @Test
    void everyRunListFilterAnswersTheSameOnceTheRunsMoved() {
        Job reports = pg.insert(aJob().recurring("* * * * *", now));
        Job other = pg.insert(aJob().recurring("* * * * *", now));
        Instant day1 = now.minus(Duration.ofDays(3));
        Instant day2 = now.minus(Duration.ofDays(2));
        List<Run> stored = List.of(
                pg.insert(aRun().ofJob(reports.id()).dueAt(day1).createdAt(day1).succeeded()),
                pg.insert(aRun().ofJob(other.id()).dueAt(day1.plusSeconds(60)).createdAt(day1.plusSeconds(60)).dead()),
                pg.insert(aRun().ofJob(reports.id()).dueAt(day2).createdAt(day2).cancelled()),
                pg.insert(aRun().ofJob(other.id()).dueAt(day2.plusSeconds(60)).createdAt(day2.plusSeconds(60))
                        .succeeded()));
        String[] queues = {"reports", "default", "reports", "default"};
        String[] labels = {"{\"team\": \"billing\"}", "{\"team\": \"ops\"}", "{}", "{\"team\": \"billing\", \"env\": \"prod\"}"};
        pg.jdbi().useHandle(h -> {
            for (int i = 0; i < stored.size(); i++) {
                h.execute("UPDATE runs SET queue = ?, labels = CAST(? AS jsonb) WHERE id = CAST(? AS uuid)", queues[i],
                        labels[i], stored.get(i).id());
            }
        });
        List<RunFilter> filters = List.of(RunFilter.ALL, RunFilter.of(reports.id(), null),
                RunFilter.of(null, RunStatus.DEAD), RunFilter.of(null, RunStatus.SUCCEEDED),
                new RunFilter(null, null, "reports", java.util.Map.of(), null, null, null),
                new RunFilter(null, null, "default", java.util.Map.of(), null, null, null),
                new RunFilter(null, null, null, java.util.Map.of("team", "billing"), null, null, null),
                new RunFilter(null, null, null, java.util.Map.of("team", "billing", "env", "prod"), null, null, null),
                new RunFilter(null, null, null, java.util.Map.of(), day1.plusSeconds(30), null, null),
                new RunFilter(null, null, null, java.util.Map.of(), null, day2.plusSeconds(30), null),
                new RunFilter(null, null, null, java.util.Map.of(), day1.plusSeconds(30), day2.plusSeconds(30), null),
                new RunFilter(null, null, null, java.util.Map.of(), null, null, day1.plusSeconds(90)),
                new RunFilter(reports.id(), RunStatus.CANCELLED, "reports", java.util.Map.of(), null, null, null));
        java.util.Map<RunFilter, List<List<String>>> before = new java.util.LinkedHashMap<>();
        filters.forEach(f -> before.put(f, pagesOf(f)));
        assertThat(before.get(RunFilter.ALL).stream().mapToInt(List::size).sum()).isEqualTo(4);

        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(4);

        filters.forEach(f -> assertThat(pagesOf(f)).as("%s", f).isEqualTo(before.get(f)));
    }

    /** The ids of every page of one run at a time, checked to be the same in the lists for a response. */
    private List<List<String>> pagesOf(RunFilter filter) {
        List<List<String>> pages = new java.util.ArrayList<>();
        String cursor = null;
        do {
            var page = runs.listMatching(filter, 1, cursor);
            var shown = runs.listForDisplayMatching(filter, 1, cursor, new io.forgeflow.domain.port.ListBudget(1 << 20));
            List<String> ids = page.items().stream().map(Run::id).toList();
            assertThat(shown.items()).extracting(listed -> listed.run().id()).containsExactlyElementsOf(ids);
            pages.add(ids);
            cursor = page.nextCursor();
        } while (cursor != null);
        return pages;
    }

    @Test
    void listsMergeLiveAndMovedRunsNewestFirstAcrossPages() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run older = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo.minusSeconds(60)).createdAt(
                twoHoursAgo.minusSeconds(60)).succeeded());
        Run moved = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).createdAt(twoHoursAgo).dead());
        Run recent = pg.insert(aRun().ofJob(job.id()).dueAt(now.minusSeconds(60)).createdAt(now.minusSeconds(60))
                .succeeded());
        Run pending = pg.insert(aRun().ofJob(job.id()).dueAt(now).createdAt(now));
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(2);

        var first = runs.listMatching(RunFilter.of(job.id(), null), 2, null);
        var second = runs.listMatching(RunFilter.of(job.id(), null), 2, first.nextCursor());

        assertThat(first.items()).extracting(Run::id).containsExactly(pending.id(), recent.id());
        assertThat(second.items()).extracting(Run::id).containsExactly(moved.id(), older.id());
    }

    @Test
    void aRequeuedMovedRunComesBackWithItsAttemptsAndRunsAgain() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run dead = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).dead().withError("boom"));
        attempt(dead, "w1");
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(1);

        Run requeued = runs.requeue(dead.id(), 2).orElseThrow();

        assertThat(requeued.status()).isEqualTo(RunStatus.PENDING);
        assertThat(requeued.workerId()).isEqualTo("w1");
        assertThat(count("run_history")).isZero();
        assertThat(count("attempt_history")).isZero();
        assertThat(count("runs")).isEqualTo(1);
        assertThat(count("run_attempts")).isEqualTo(1);
        assertThat(runs.find(dead.id()).orElseThrow().status()).isEqualTo(RunStatus.PENDING);
    }

    @Test
    void aRequeueThatFailsLeavesTheMovedRunInHistory() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run succeeded = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).succeeded());
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(1);

        assertThat(runs.requeue(succeeded.id(), 1)).isEmpty(); // only dead and cancelled runs are requeued

        assertThat(count("run_history")).isEqualTo(1);
        assertThat(count("runs")).isZero();
    }

    @Test
    void whatLiveLogicStillReadsStaysInRuns() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run recent = pg.insert(aRun().ofJob(job.id()).dueAt(now.minusSeconds(600)).succeeded());
        Run pending = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo));
        Run blocking = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).dead());
        pg.jdbi().useHandle(h -> h.execute("UPDATE runs SET sequence_key = 'orders', sequence_on_dead = 'block', "
                + "sequence_pos = 1 WHERE id = CAST(? AS uuid)", blocking.id()));
        Job parent = pg.insert(aJob().withStatus(JobStatus.COMPLETED));
        Job child = pg.insert(aJob().withStatus(JobStatus.COMPLETED));
        pg.jdbi().useHandle(h -> h.execute("INSERT INTO job_dependencies (job_id, parent_id, position) "
                + "VALUES (CAST(? AS uuid), CAST(? AS uuid), 0)", child.id(), parent.id()));
        Run parentRun = pg.insert(aRun().ofJob(parent.id()).dueAt(twoHoursAgo).succeeded());
        Run childRun = pg.insert(aRun().ofJob(child.id()).dueAt(twoHoursAgo).cancelled());
        Run debounced = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).succeeded());
        pg.jdbi().useHandle(h -> h.execute("UPDATE runs SET debounce_key = 'k', debounce_until = ? "
                + "WHERE id = CAST(? AS uuid)", now.plusSeconds(60), debounced.id()));

        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isZero();

        List<String> left = pg.jdbi().withHandle(h -> h.select("SELECT id::text FROM runs").mapTo(String.class).list());
        assertThat(left).containsExactlyInAnyOrder(recent.id(), pending.id(), blocking.id(), parentRun.id(), childRun.id(),
                        debounced.id());
    }

    @Test
    void nothingMovesWhileALiveNodeOfAnEarlierReleaseDoesNotReadHistory() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).succeeded());
        pg.jdbi().useHandle(h -> h.execute("INSERT INTO nodes (worker_id, roles, version, started_at, last_seen_at) "
                + "VALUES ('old-node', '{api,scheduler}', '0.12.0', ?, ?), ('old-worker', '{worker}', '0.12.0', ?, ?)",
                now, now, now, now));

        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isZero();

        pg.jdbi().useHandle(h -> h.execute("UPDATE nodes SET last_seen_at = ? WHERE worker_id = 'old-node'",
                now.minus(Duration.ofHours(1))));
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).as("once that node is gone; an older worker reads "
                + "no finished run").isEqualTo(1);
    }

    @Test
    void retentionDropsWholeDaysAndDeletesNoRow() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Instant tooOld = now.minus(KEEP).minus(Duration.ofDays(2));
        Run dropped = pg.insert(aRun().ofJob(job.id()).dueAt(tooOld).succeeded());
        attempt(dropped, "w1");
        Run kept = pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(KEEP).plus(Duration.ofDays(1))).succeeded());
        // moved while a longer retention kept them; then the retention is 14 days
        assertThat(retention.moveToHistory(AFTER, KEEP.plusDays(7), 1_000)).isEqualTo(2);
        String oldDay = day(tooOld);

        assertThat(retention.dropHistory(KEEP)).contains(oldDay).doesNotContain(day(kept.finishedAt()));

        assertThat(partitions()).doesNotContain("run_history_p" + oldDay, "attempt_history_p" + oldDay)
                .contains("run_history_p" + day(kept.finishedAt()), "run_history_p" + day(now.plus(Duration.ofDays(2))));
        assertThat(runs.find(dropped.id())).isEmpty();
        assertThat(runs.find(kept.id())).isPresent();
        long deletedRows = pg.jdbi().withHandle(h -> h.select("SELECT coalesce(sum(n_tup_del), 0) FROM "
                + "pg_stat_user_tables WHERE relname ~ '^(run|attempt)_history_p'").mapTo(Long.class).one());
        assertThat(deletedRows).isZero();
    }

    @Test
    void aLongRetentionKeepsTheHistoryInAFewPartitions() {
        Duration year = Duration.ofDays(365);
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        List<Run> stored = new java.util.ArrayList<>();
        for (int i = 1; i <= 60; i++) {
            stored.add(pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(5L * i))).succeeded()));
        }

        assertThat(retention.moveToHistory(AFTER, year, 1_000)).isEqualTo(60);

        // a statement over the history plans and locks every partition with its indexes: with a partition a day, 400
        // days made a lookup by id take 55 ms and 4,000 locks (of max_locks_per_transaction x max_connections)
        assertThat(partitions().stream().filter(t -> t.startsWith("run_history_p")).count())
                .isLessThanOrEqualTo(MAX_PARTITIONS);
        for (Run run : stored) {
            assertThat(runs.find(run.id())).map(Run::id).contains(run.id());
        }
        assertThat(runs.listMatching(RunFilter.ALL, 100, null).items()).extracting(Run::id)
                .containsExactlyElementsOf(stored.stream().map(Run::id).sorted(java.util.Comparator.reverseOrder())
                        .toList());

        // finished after a time within a partition of 14 days: that partition is read, the older ones are not needed
        Instant cut = now.minus(Duration.ofDays(101)).plus(Duration.ofHours(7));
        assertThat(runs.listMatching(new RunFilter(null, null, null, null, null, null, cut), 100, null).items())
                .extracting(Run::id)
                .containsExactlyElementsOf(stored.stream().filter(r -> r.finishedAt().isAfter(cut)).map(Run::id)
                        .sorted(java.util.Comparator.reverseOrder()).toList());

        // the retention made shorter: a partition goes once all of it is older than the retention
        Duration keep = Duration.ofDays(100);
        assertThat(retention.dropHistory(keep)).isNotEmpty();
        for (Run run : stored) {
            if (run.finishedAt().isAfter(now.minus(keep))) {
                assertThat(runs.find(run.id())).as("finished within the retention").isPresent();
            } else if (run.finishedAt().isBefore(now.minus(keep).minus(Duration.ofDays(28)))) {
                assertThat(runs.find(run.id())).as("a partition older than the retention").isEmpty();
            }
        }
    }

    @Test
    void aRetentionMadeLongerFitsItsPartitionsBesideTheDailyOnes() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run recent = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo.minusSeconds(60)).succeeded());
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(1);
        List<String> daily = partitions();
        List<Run> older = List.of(
                pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(1))).succeeded()),
                pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(10))).succeeded()),
                pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(40))).succeeded()),
                pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(200))).succeeded()));

        assertThat(retention.moveToHistory(AFTER, Duration.ofDays(365), 1_000)).isEqualTo(4);

        assertThat(partitions()).containsAll(daily);
        assertThat(runs.find(recent.id())).isPresent();
        for (Run run : older) {
            assertThat(runs.find(run.id())).as("moved beside the daily partitions").isPresent();
        }
    }

    @Test
    void runsThatFinishedBeforeTheRetentionAreLeftToDeletionAndGetNoPartition() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run ancient = pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(400))).succeeded());

        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isZero();

        assertThat(partitions()).doesNotContain("run_history_p" + day(ancient.finishedAt()));
        assertThat(retention.deleteFinishedRuns(KEEP, 1_000)).isEqualTo(1);
        assertThat(runs.find(ancient.id())).isEmpty();
    }

    @Test
    void anApplicationHoldingTheHistoryOpenMakesTheDropGiveWayUntilTheNextPass() throws Exception {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run old = pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(KEEP).minus(Duration.ofDays(2))).succeeded());
        assertThat(retention.moveToHistory(AFTER, KEEP.plusDays(7), 1_000)).isEqualTo(1);
        String oldDay = day(old.finishedAt());
        io.forgeflow.adapter.postgres.testing.PsqlSession report = openReport();
        try {
            assertThat(retention.dropHistory(KEEP)).as("gives way").doesNotContain(oldDay);
            assertThat(partitions()).contains("run_history_p" + oldDay);
            assertThat(waitingLocks()).as("no lock request left waiting, for others to queue behind").isZero();
            report.commit();
        } finally {
            report.close();
        }
        assertThat(retention.dropHistory(KEEP)).contains(oldDay);
        assertThat(partitions()).doesNotContain("run_history_p" + oldDay, "attempt_history_p" + oldDay);
    }

    @Test
    void theFixturesCleanupLeavesTheSchemaAsMigrated() {
        List<String> migrated = relations();
        pg.jdbi().useHandle(h -> h.execute("SELECT forgeflow_history_partitions(current_date - 20, current_date + 2)"));
        assertThat(partitions()).hasSize(46);

        pg.truncateAll();

        // each partition left would be truncated after every later test of the JVM (seconds per test)
        assertThat(partitions()).isEmpty();
        assertThat(relations()).isEqualTo(migrated);
    }

    @Test
    void anApplicationHoldingTheHistoryOpenMakesTheMoveThatNeedsANewDayWaitForTheNextPass() throws Exception {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Run run = pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(5))).succeeded());
        pg.jdbi().useHandle(h -> h.execute("SELECT forgeflow_drop_history_day(?)", day(run.finishedAt())));
        io.forgeflow.adapter.postgres.testing.PsqlSession report = openReport();
        try {
            assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).as("gives way").isZero();
            assertThat(count("runs")).isEqualTo(1);
            assertThat(waitingLocks()).as("no lock request left waiting, for others to queue behind").isZero();
            report.commit();
        } finally {
            report.close();
        }
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(1);
        assertThat(runs.find(run.id())).isPresent();
    }

    @Test
    void aJobIsKeptWhileItsRunsAreInHistoryAndPurgeTakesThemAlong() {
        Job done = pg.insert(aJob().withStatus(JobStatus.COMPLETED).createdAt(now.minus(KEEP).minus(
                Duration.ofDays(3))));
        Run run = pg.insert(aRun().ofJob(done.id()).dueAt(now.minus(KEEP).minus(Duration.ofDays(3))).succeeded());
        attempt(run, "w1");
        pg.jdbi().useHandle(h -> h.execute("UPDATE jobs SET updated_at = ? WHERE id = CAST(? AS uuid)",
                now.minus(KEEP).minus(Duration.ofDays(3)), done.id()));
        assertThat(retention.moveToHistory(AFTER, KEEP.plusDays(7), 1_000)).isEqualTo(1);

        assertThat(retention.deleteFinishedJobs(KEEP, 1_000)).as("its run is still readable").isZero();

        pg.jdbi().useHandle(h -> h.execute("UPDATE jobs SET status = 'deleted' WHERE id = CAST(? AS uuid)", done.id()));
        assertThat(new PostgresJobRepository(pg.jdbi(), clock).purge(done.id())).isTrue();
        assertThat(count("run_history")).isZero();
        assertThat(count("attempt_history")).isZero();
    }

    /**
     * /api/stats and the metrics count finished runs without reading the history's rows (migration 0035): at 10,000,000
     * rows a count over all_runs read them all at every scrape. Their statements' plans name no history partition.
     */
    @Test
    void theStatsAddUpTheHistorysCountsInsteadOfCountingItsRows() throws Exception {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).succeeded());
        pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(2))).dead());
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(2);

        for (String file : List.of("RunSql/countByStatus.sql", "StatsSql/snapshot.sql")) {
            String sql;
            try (java.io.InputStream in = getClass().getResourceAsStream("/io/forgeflow/adapter/postgres/" + file)) {
                sql = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                        .replaceAll("(?m)--.*$", "").replace(":tenant", "NULL").replace(":now", "NULL");
            }
            String plan = pg.jdbi().withHandle(h -> String.join("\n", h.createQuery("EXPLAIN (COSTS OFF) " + sql)
                    .mapTo(String.class).list()));
            assertThat(plan).as(file).doesNotContain("run_history");
        }
        assertThat(runs.countByStatus(null)).containsEntry(RunStatus.SUCCEEDED, 1L).containsEntry(RunStatus.DEAD, 1L);
    }

    /** The history's counts follow every writer of run_history: the move, a requeue's restore, a purge, a drop. */
    @Test
    void theHistorysCountsFollowTheMoveARequeueAPurgeAndADrop() {
        Job job = pg.insert(aJob().recurring("* * * * *", now));
        Job other = pg.insert(aJob().recurring("* * * * *", now));
        Instant old = now.minus(KEEP).minus(Duration.ofDays(2));
        Run dead = pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).dead());
        pg.insert(aRun().ofJob(job.id()).dueAt(twoHoursAgo).succeeded());
        pg.insert(aRun().ofJob(job.id()).dueAt(now.minus(Duration.ofDays(3))).cancelled());
        pg.insert(aRun().ofJob(other.id()).dueAt(now.minus(Duration.ofDays(3))).succeeded());
        pg.insert(aRun().ofJob(other.id()).dueAt(old).succeeded());
        pg.insert(aRun().ofJob(other.id()).dueAt(old).dead());
        pg.insert(aRun().ofJob(other.id()).dueAt(now).running().leasedBy("w1").leaseUntil(now.plusSeconds(60)).attempt(1));
        pg.jdbi().useHandle(h -> h.execute("UPDATE runs SET tenant = 'acme' WHERE job_id = CAST(? AS uuid)", other.id()));
        assertThat(retention.moveToHistory(AFTER, KEEP.plusDays(7), 1_000)).isEqualTo(6);
        countsAreTheRows();

        runs.requeue(dead.id(), 2).orElseThrow();
        countsAreTheRows();

        assertThat(retention.dropHistory(KEEP)).contains(day(old));
        countsAreTheRows();

        pg.jdbi().useHandle(h -> h.execute("UPDATE jobs SET status = 'deleted' WHERE id = CAST(? AS uuid)", other.id()));
        assertThat(new PostgresJobRepository(pg.jdbi(), clock).purge(other.id())).isTrue();
        countsAreTheRows();
    }

    /** The counts the stats read are those of the rows: all tenants, and each. */
    private void countsAreTheRows() {
        PostgresQueueStats stats = new PostgresQueueStats(pg.jdbi(), clock);
        for (String tenant : java.util.Arrays.asList(null, "default", "acme")) {
            java.util.Map<RunStatus, Long> rows = new java.util.EnumMap<>(RunStatus.class);
            pg.jdbi().useHandle(h -> h.createQuery("SELECT status, count(*) FROM all_runs "
                            + "WHERE CAST(:tenant AS text) IS NULL OR tenant = :tenant GROUP BY status")
                    .bind("tenant", tenant)
                    .map((rs, ctx) -> java.util.Map.entry(RunStatus.valueOf(rs.getString(1).toUpperCase()),
                            rs.getLong(2)))
                    .forEach(e -> rows.put(e.getKey(), e.getValue())));
            java.util.Map<RunStatus, Long> counted = new java.util.EnumMap<>(RunStatus.class);
            runs.countByStatus(tenant).forEach((status, n) -> {
                if (n > 0) {
                    counted.put(status, n);
                }
            });
            assertThat(counted).as("tenant " + tenant).isEqualTo(rows);
            if (tenant == null) {
                for (RunStatus status : List.of(RunStatus.SUCCEEDED, RunStatus.DEAD, RunStatus.CANCELLED)) {
                    assertThat(stats.snapshot().depth().getOrDefault(status, 0L)).as(status.name())
                            .isEqualTo(rows.getOrDefault(status, 0L));
                }
            }
        }
    }

    @Test
    void theRollbackOfMigration0033MovesTheHistoryBackIntoRuns() throws Exception {
        org.postgresql.ds.PGSimpleDataSource db = (org.postgresql.ds.PGSimpleDataSource) pg.createEmptyDatabase();
        PostgresMigrations.migrate(db, PostgresSchema.DEFAULT);
        org.postgresql.ds.PGSimpleDataSource inSchema = new org.postgresql.ds.PGSimpleDataSource();
        inSchema.setURL(db.getURL());
        inSchema.setUser(db.getUser());
        inSchema.setPassword(db.getPassword());
        inSchema.setCurrentSchema(PostgresSchema.DEFAULT);
        org.jdbi.v3.core.Jdbi own = PostgresJdbi.create(inSchema);
        Job job = aJob().recurring("* * * * *", now).build();
        Run run = aRun().ofJob(job.id()).dueAt(twoHoursAgo).dead().build();
        own.useHandle(h -> {
            h.execute("INSERT INTO jobs (id, name, executor, payload, status, next_run_at) VALUES "
                    + "(CAST(? AS uuid), 'j', 'shell', '{\"command\": \"true\"}', 'active', ?)", job.id(), now);
            h.execute("INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, "
                    + "finished_at, executor, timeout_seconds, retry_base_seconds, retry_max_seconds) VALUES "
                    + "(CAST(? AS uuid), CAST(? AS uuid), 'dead', 5, ?, 1, 1, ?, 'shell', 60, 5, 60)",
                    run.id(), job.id(), twoHoursAgo, twoHoursAgo);
            h.execute("INSERT INTO run_attempts (run_id, attempt, worker_id, started_at, finished_at, outcome) "
                    + "VALUES (CAST(? AS uuid), 1, 'w1', ?, ?, 'failed')", run.id(), twoHoursAgo, twoHoursAgo);
        });
        assertThat(new PostgresRetention(own, clock).moveToHistory(AFTER, KEEP, 10)).isEqualTo(1);
        String rollback;
        try (java.io.InputStream in = getClass().getResourceAsStream("/db/changelog/0033-run-history.sql")) {
            rollback = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
                    .filter(l -> l.startsWith("--rollback ")).findFirst().orElseThrow()
                    .substring("--rollback ".length());
        }

        own.useHandle(h -> h.execute(rollback));

        own.useHandle(h -> {
            assertThat(h.select("SELECT status || ' ' || coalesce(worker_id, '-') FROM runs").mapTo(String.class)
                    .list()).containsExactly("dead -");
            assertThat(h.select("SELECT worker_id FROM run_attempts").mapTo(String.class).list()).containsExactly("w1");
            assertThat(h.select("SELECT to_regclass('run_history') IS NULL").mapTo(Boolean.class).one()).isTrue();
        });
    }

    @Test
    void aBackfillDoesNotRunAgainTheTicksWhoseRunsMovedToHistory() {
        Job job = pg.insert(aJob().recurring("0 * * * *", now.plusSeconds(3600)));
        PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
        Instant t1 = Instant.parse("2025-06-01T08:00:00Z");
        Instant t2 = Instant.parse("2025-06-01T09:00:00Z");
        String first = io.forgeflow.domain.id.Ids.newId(now);
        assertThat(jobs.backfill(job.id(), first, io.forgeflow.domain.job.Backfill.of(t1, now, null, null),
                List.of(t1, t2)).orElseThrow().runs()).hasSize(2);
        pg.jdbi().useHandle(h -> {
            h.execute("UPDATE runs SET status = 'running', attempt = 1, worker_id = 'w1', started_at = scheduled_for, "
                    + "lease_expires_at = scheduled_for + interval '1 minute' WHERE job_id = CAST(? AS uuid)", job.id());
            h.execute("UPDATE runs SET status = 'succeeded', worker_id = NULL, lease_expires_at = NULL, "
                    + "finished_at = scheduled_for + interval '1 minute' WHERE job_id = CAST(? AS uuid)", job.id());
        });
        assertThat(retention.moveToHistory(AFTER, KEEP, 1_000)).isEqualTo(2);

        var again = jobs.backfill(job.id(), io.forgeflow.domain.id.Ids.newId(now),
                io.forgeflow.domain.job.Backfill.of(t1, now, null, null), List.of(t1, t2)).orElseThrow();

        assertThat(again.runs()).as("those ticks ran").isEmpty();
        assertThat(jobs.backfillProgress(job.id(), first).orElseThrow().runs())
                .containsExactly(java.util.Map.entry("succeeded", 2L));
    }

    @Test
    void historyTablesKeepTheColumnsOfTheLiveTables() {
        assertThat(columns("run_history")).isEqualTo(columns("runs"));
        assertThat(columns("all_runs")).isEqualTo(columns("runs"));
        List<String> attempts = new java.util.ArrayList<>(columns("run_attempts"));
        attempts.add("run_finished_at timestamp with time zone");
        assertThat(columns("attempt_history")).isEqualTo(attempts);
    }

    /** An application's report over the history, its transaction left open (psql). */
    private static io.forgeflow.adapter.postgres.testing.PsqlSession openReport() throws Exception {
        return io.forgeflow.adapter.postgres.testing.PsqlSession.holdOpen(pg.jdbcUrl(), pg.user(), pg.password(),
                "history-report", "SELECT count(*) FROM forgeflow.all_runs");
    }

    private static long waitingLocks() {
        return pg.jdbi().withHandle(h -> h.select("SELECT count(*) FROM pg_locks WHERE NOT granted")
                .mapTo(Long.class).one());
    }

    private List<String> columns(String table) {
        return pg.jdbi().withHandle(h -> h.select("SELECT attname || ' ' || format_type(atttypid, atttypmod) "
                + "FROM pg_attribute WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped "
                + "ORDER BY attnum", table).mapTo(String.class).list());
    }

    private List<String> relations() {
        return pg.jdbi().withHandle(h -> h.select("SELECT relname FROM pg_class "
                + "WHERE relnamespace = to_regnamespace(current_schema()) ORDER BY relname").mapTo(String.class).list());
    }

    private List<String> partitions() {
        return pg.jdbi().withHandle(h -> h.select("SELECT c.relname FROM pg_inherits i JOIN pg_class c "
                + "ON c.oid = i.inhrelid WHERE i.inhparent IN (to_regclass('run_history'), "
                + "to_regclass('attempt_history'))").mapTo(String.class).list());
    }

    private static String day(Instant at) {
        return java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd").withZone(java.time.ZoneOffset.UTC).format(at);
    }

    private long count(String table) {
        return pg.jdbi().withHandle(h -> h.select("SELECT count(*) FROM " + table).mapTo(Long.class).one());
    }

    private void attempt(Run run, String worker) {
        pg.jdbi().useHandle(h -> h.createUpdate("INSERT INTO run_attempts (run_id, attempt, worker_id, started_at, "
                        + "finished_at, outcome) VALUES (CAST(:id AS uuid), :attempt, :worker, :at, :at, 'failed')")
                .bind("id", run.id()).bind("attempt", run.attempt()).bind("worker", worker)
                .bind("at", run.finishedAt()).execute());
    }
}
