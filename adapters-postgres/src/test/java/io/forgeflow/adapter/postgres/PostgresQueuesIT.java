package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.port.JobRepository.TickOutcome;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.queue.RateLimit;
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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Named queues on the claim engine: selections, pause, limits (also under racing claimers), rate windows, overlap. */
class PostgresQueuesIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Set<String> NOOP = Set.of("noop");

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
    final PostgresQueueRepository queues = new PostgresQueueRepository(pg.jdbi(), clock);
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);

    List<Run> seed(Job job, int n) {
        List<Run> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Run.pending(Ids.newId(now.plusMillis(i)), job.id(), 3, 5, now.minusSeconds(1), "noop", Map.of(),
                    60, now));
        }
        return pg.insertAll(batch);
    }

    Job jobIn(String queueName) {
        return pg.insert(aJob().inQueue(queueName));
    }

    List<Run> claim(String worker, QueueSelection selection, int limit) {
        return queue.claim(worker, NOOP, selection, limit, LEASE);
    }

    @Nested
    class Selections {
        @Test
        void aSelectionTakesOnlyItsQueuesAndAnExclusionLeavesThemAlone() {
            seed(jobIn("reports"), 3);
            seed(jobIn("webhooks"), 3);
            seed(jobIn("default"), 3);

            assertThat(claim("w1", QueueSelection.only(Set.of("reports")), 10)).hasSize(3);
            assertThat(claim("w2", QueueSelection.allBut(Set.of("webhooks")), 10)).hasSize(3)
                    .allSatisfy(r -> assertThat(queueOf(r)).isEqualTo("default"));
            assertThat(claim("w3", QueueSelection.only(Set.of("webhooks", "nothing-here")), 10)).hasSize(3);
            assertThat(runs.countByStatus().get(RunStatus.PENDING)).isZero();
        }

        @Test
        void claimsFromSeveralQueuesKeepPriorityOrder() {
            Job low = pg.insert(aJob().inQueue("a"));
            Job high = pg.insert(aJob().inQueue("b"));
            pg.insert(Run.pending(Ids.newId(now), low.id(), 3, 9, now.minusSeconds(5), "noop", Map.of(), 60, now));
            Run urgent = pg.insert(Run.pending(Ids.newId(now.plusMillis(1)), high.id(), 3, 1, now.minusSeconds(1),
                    "noop", Map.of(), 60, now));
            queues.configure("default", "a", true, false, new QueueLimits(10, null)); // one queue on the guarded path

            List<Run> claimed = claim("w1", QueueSelection.ALL, 1);

            assertThat(claimed).extracting(Run::id).containsExactly(urgent.id());
        }
    }

    @Nested
    class Pause {
        @Test
        void aPausedQueueIsNotClaimedUntilResumedAndItsRunsKeepTheirAttempts() {
            seed(jobIn("bulk"), 4);
            seed(jobIn("other"), 2);
            QueueInfo paused = queues.setPaused("default", "bulk", true);

            assertThat(paused.paused()).isTrue();
            assertThat(paused.pending()).isEqualTo(4);
            assertThat(claim("w1", QueueSelection.ALL, 10)).hasSize(2);
            assertThat(claim("w1", QueueSelection.only(Set.of("bulk")), 10)).isEmpty();

            queues.setPaused("default", "bulk", false);
            List<Run> claimed = claim("w1", QueueSelection.ALL, 10);
            assertThat(claimed).hasSize(4).allSatisfy(r -> assertThat(r.attempt()).isEqualTo(1));
        }

        @Test
        void pausingAQueueWithLimitsKeepsTheLimits() {
            queues.configure("default", "bulk", true, true, new QueueLimits(5, new RateLimit(100, 60)));
            QueueInfo q = queues.setPaused("default", "bulk", true);
            assertThat(q.limits()).isEqualTo(new QueueLimits(5, new RateLimit(100, 60)));
            assertThat(queues.setPaused("default", "bulk", false).limits().maxRunning()).isEqualTo(5);
        }
    }

    @Nested
    class Limits {
        @Test
        void aQueueMaxRunningCountsRunsAlreadyRunning() {
            seed(jobIn("reports"), 10);
            queues.configure("default", "reports", true, false, new QueueLimits(3, null));

            assertThat(claim("w1", QueueSelection.ALL, 2)).hasSize(2);
            assertThat(claim("w2", QueueSelection.ALL, 10)).hasSize(1);
            assertThat(claim("w3", QueueSelection.ALL, 10)).isEmpty();
        }

        @Test
        void theSmallestMaxConcurrentAmongTheJobsSharingAKeyWins() {
            Job strict = pg.insert(aJob().limitedBy("billing", 2));
            Job lax = pg.insert(aJob().limitedBy("billing", 5));
            seed(lax, 10);

            assertThat(claim("w1", QueueSelection.ALL, 10)).hasSize(2);
            assertThat(strict.spec().maxConcurrent()).isEqualTo(2);
        }

        @Test
        void maxConcurrentAloneLimitsTheJobsOwnRunsOnly() {
            Job one = pg.insert(aJob().limitedBy(null, 1));
            Job two = pg.insert(aJob().limitedBy(null, 1));
            seed(one, 3);
            seed(two, 3);

            List<Run> claimed = claim("w1", QueueSelection.ALL, 10);

            assertThat(claimed).extracting(Run::jobId).containsExactlyInAnyOrder(one.id(), two.id());
            String key = pg.jdbi().withHandle(h -> h.createQuery("SELECT DISTINCT concurrency_key FROM runs "
                    + "WHERE job_id = CAST(:id AS uuid)").bind("id", one.id()).mapTo(String.class).one());
            assertThat(key).isEqualTo("job:" + one.id());
        }

        @Test
        void aRunningRunWhoseLeaseExpiredNoLongerCounts() {
            seed(pg.insert(aJob().limitedBy("exclusive", 1)), 2);
            assertThat(queue.claim("w1", NOOP, QueueSelection.ALL, 5, Duration.ofSeconds(1))).hasSize(1);
            assertThat(claim("w2", QueueSelection.ALL, 5)).isEmpty();

            clock.advance(Duration.ofSeconds(2));

            assertThat(claim("w2", QueueSelection.ALL, 5)).hasSize(1);
        }

        @Test
        void keyedRunsBehindAFullKeyDoNotBlockOtherKeys() {
            Job busy = pg.insert(aJob().limitedBy("busy", 1));
            Job quiet = pg.insert(aJob().limitedBy("quiet", 1));
            seed(busy, 50);
            assertThat(claim("w1", QueueSelection.ALL, 1)).hasSize(1);
            Run later = pg.insert(Run.pending(Ids.newId(now.plusSeconds(1)), quiet.id(), 3, 5, now, "noop", Map.of(),
                    60, now));

            assertThat(claim("w2", QueueSelection.ALL, 5)).extracting(Run::id).containsExactly(later.id());
        }

        @Test
        void racingClaimersNeverOvershootAKeyOrAQueueLimit() throws Exception {
            seed(pg.insert(aJob().limitedBy("shared", 3)), 200);
            seed(jobIn("limited"), 200);
            queues.configure("default", "limited", true, false, new QueueLimits(4, null));
            int claimers = 12;
            CyclicBarrier start = new CyclicBarrier(claimers);
            ExecutorService pool = Executors.newFixedThreadPool(claimers);
            try {
                List<Future<Integer>> results = new ArrayList<>();
                for (int i = 0; i < claimers; i++) {
                    String worker = "racer-" + i;
                    results.add(pool.submit(() -> {
                        start.await();
                        int n = 0;
                        for (int round = 0; round < 5; round++) {
                            n += claim(worker, QueueSelection.ALL, 3).size();
                        }
                        return n;
                    }));
                }
                int total = 0;
                for (Future<Integer> f : results) {
                    total += f.get();
                }
                assertThat(total).isEqualTo(7);
            } finally {
                pool.shutdownNow();
            }
            long keyed = count("SELECT count(*) FROM runs WHERE status = 'running' AND concurrency_key = 'shared'");
            long limited = count("SELECT count(*) FROM runs WHERE status = 'running' AND queue = 'limited'");
            assertThat(keyed).isEqualTo(3);
            assertThat(limited).isEqualTo(4);
        }
    }

    @Nested
    class Rate {
        @Test
        void aRateLimitIsASlidingWindowAndItsOldStartsArePruned() {
            seed(jobIn("partner"), 30);
            queues.configure("default", "partner", false, true, new QueueLimits(null, new RateLimit(5, 10)));

            assertThat(claim("w1", QueueSelection.ALL, 3)).hasSize(3);
            clock.advance(Duration.ofSeconds(5));
            assertThat(claim("w1", QueueSelection.ALL, 10)).hasSize(2);
            assertThat(queues.get("default", "partner").startsInWindow()).isEqualTo(5);
            clock.advance(Duration.ofSeconds(5)); // the first three starts leave the window, the other two stay
            assertThat(claim("w1", QueueSelection.ALL, 10)).hasSize(3);
            clock.advance(Duration.ofSeconds(11));
            assertThat(claim("w1", QueueSelection.ALL, 10)).hasSize(5);
            assertThat(count("SELECT count(*) FROM queue_starts")).as("starts older than the window are deleted")
                    .isEqualTo(5);
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'pending' AND attempt > 0")).isZero();
        }

        @Test
        void clearingARateLimitLetsEverythingStart() {
            seed(jobIn("partner"), 10);
            queues.configure("default", "partner", false, true, new QueueLimits(null, new RateLimit(1, 3600)));
            assertThat(claim("w1", QueueSelection.ALL, 10)).hasSize(1);
            QueueInfo cleared = queues.configure("default", "partner", false, true, QueueLimits.NONE);
            assertThat(cleared.limits().rateLimit()).isNull();
            assertThat(claim("w1", QueueSelection.ALL, 10)).hasSize(9);
        }
    }

    @Nested
    class Settings {
        @Test
        void configureAppliesOnlyTheGivenLimits() {
            queues.configure("default", "q", true, true, new QueueLimits(2, new RateLimit(10, 60)));
            QueueInfo onlyMax = queues.configure("default", "q", true, false, new QueueLimits(7, null));
            assertThat(onlyMax.limits()).isEqualTo(new QueueLimits(7, new RateLimit(10, 60)));
            QueueInfo clearedMax = queues.configure("default", "q", true, false, QueueLimits.NONE);
            assertThat(clearedMax.limits()).isEqualTo(new QueueLimits(null, new RateLimit(10, 60)));
            QueueInfo nothing = queues.configure("default", "q", false, false, QueueLimits.NONE);
            assertThat(nothing.limits()).isEqualTo(clearedMax.limits());
        }

        @Test
        void listingShowsDefaultConfiguredAndUsedQueuesWithTheirCounts() {
            seed(jobIn("reports"), 3);
            queue.claim("w1", NOOP, QueueSelection.ALL, 1, LEASE);
            pg.insert(Run.pending(Ids.newId(now), jobIn("reports").id(), 3, 5, now.plusSeconds(600), "noop",
                    Map.of(), 60, now));
            queues.setPaused("default", "idle", true);
            pg.insert(aJob().inQueue("nightly").recurring("0 3 * * *", now.plusSeconds(3600)));

            List<QueueInfo> all = queues.list(null);

            assertThat(all).extracting(QueueInfo::name).containsExactly("default", "idle", "nightly", "reports");
            QueueInfo reports = all.get(3);
            assertThat(reports.pending()).isEqualTo(3);
            assertThat(reports.due()).isEqualTo(2);
            assertThat(reports.running()).isEqualTo(1);
            assertThat(reports.lag()).isEqualTo(Duration.ofSeconds(1));
            assertThat(all.get(1).paused()).isTrue();
        }

        @Test
        void anUnknownQueueReadsAsEmptyAndOpenAndABadNameIsRefused() {
            QueueInfo unknown = queues.get("default", "never-used");
            assertThat(unknown.pending()).isZero();
            assertThat(unknown.paused()).isFalse();
            assertThat(unknown.limits().isLimited()).isFalse();
            assertThatThrownBy(() -> queues.get("default", "no spaces")).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("queue name");
            assertThatThrownBy(() -> queues.setPaused("default", "../x", true)).isInstanceOf(ValidationException.class);
        }

        @Test
        void aSubmittedJobsFirstRunCarriesItsQueueAndKey() {
            Job job = aJob().inQueue("billing-q").limitedBy("billing", 2).build();
            Run first = Run.pending(Ids.newId(now), job.id(), 3, 5, now, "noop", Map.of(), 300, now);
            jobs.create(job, first);

            assertThat(count("SELECT count(*) FROM runs WHERE queue = 'billing-q' AND concurrency_key = 'billing' "
                    + "AND max_concurrent = 2")).isEqualTo(1);
            Job read = jobs.find(job.id()).orElseThrow();
            assertThat(read.spec().queue()).isEqualTo("billing-q");
            assertThat(read.spec().concurrencyKey()).isEqualTo("billing");
            assertThat(read.spec().maxConcurrent()).isEqualTo(2);
        }
    }

    @Nested
    class OverlapPolicies {
        Job recurring(Overlap overlap) {
            return pg.insert(aJob().recurring("* * * * *", now).overlapping(overlap));
        }

        Run tick(Job job, Instant at) {
            return Run.pending(Ids.newId(at), job.id(), 3, 5, at, "noop", Map.of(), 60, at);
        }

        @Test
        void skipDropsTheTickWhileARunIsLiveButStillAdvancesTheJob() {
            Job job = recurring(Overlap.SKIP);
            assertThat(jobs.fire(job.id(), now, now.plusSeconds(60), tick(job, now))).isEqualTo(TickOutcome.FIRED);

            Instant next = now.plusSeconds(60);
            assertThat(jobs.fire(job.id(), next, next.plusSeconds(60), tick(job, next)))
                    .isEqualTo(TickOutcome.SKIPPED_OVERLAP);
            assertThat(jobs.find(job.id()).orElseThrow().nextRunAt()).isEqualTo(next.plusSeconds(60));
            assertThat(count("SELECT count(*) FROM runs")).isEqualTo(1);
        }

        @Test
        void queueOneKeepsOneWaitingBehindTheRunningOne() {
            Job job = recurring(Overlap.QUEUE_ONE);
            jobs.fire(job.id(), now, now.plusSeconds(60), tick(job, now));
            queue.claim("w1", NOOP, QueueSelection.ALL, 1, LEASE);
            Instant t1 = now.plusSeconds(60);
            Instant t2 = now.plusSeconds(120);

            assertThat(jobs.fire(job.id(), t1, t2, tick(job, t1))).isEqualTo(TickOutcome.FIRED);
            assertThat(jobs.fire(job.id(), t2, t2.plusSeconds(60), tick(job, t2))).isEqualTo(TickOutcome.SKIPPED_OVERLAP);
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'pending'")).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'running'")).isEqualTo(1);
        }

        @Test
        void cancelRunningCancelsThePendingAndAsksTheRunningToStopThenFires() {
            Job job = recurring(Overlap.CANCEL_RUNNING);
            jobs.fire(job.id(), now, now.plusSeconds(60), tick(job, now));
            Run running = queue.claim("w1", NOOP, QueueSelection.ALL, 1, LEASE).get(0);
            Instant t1 = now.plusSeconds(60);
            Instant t2 = now.plusSeconds(120);
            jobs.fire(job.id(), t1, t2, tick(job, t1));
            Run waiting = pg.jdbi().withHandle(h -> h.createQuery("SELECT CAST(id AS text) FROM runs WHERE status = "
                    + "'pending'").mapTo(String.class).one()).transform(id -> runs.find(id).orElseThrow());

            assertThat(jobs.fire(job.id(), t2, t2.plusSeconds(60), tick(job, t2))).isEqualTo(TickOutcome.FIRED);

            assertThat(runs.find(running.id()).orElseThrow().cancelRequested()).isTrue();
            Run replaced = runs.find(waiting.id()).orElseThrow();
            assertThat(replaced.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(replaced.error()).contains("newer tick");
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'pending'")).isEqualTo(1);
        }

        @Test
        void allowFiresWhateverIsLive() {
            Job job = recurring(Overlap.ALLOW);
            jobs.fire(job.id(), now, now.plusSeconds(60), tick(job, now));
            Instant t1 = now.plusSeconds(60);
            assertThat(jobs.fire(job.id(), t1, t1.plusSeconds(60), tick(job, t1))).isEqualTo(TickOutcome.FIRED);
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'pending'")).isEqualTo(2);
        }
    }

    String queueOf(Run run) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT queue FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", run.id()).mapTo(String.class).one());
    }

    long count(String sql) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }
}
