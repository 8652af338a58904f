package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Debounce;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.Throttle;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.run.Run;
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

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 44: debounce decided at submission, throttle decided by the claim, both in PostgreSQL. */
class FlowControlIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Set<String> NOOP = Set.of("noop");

    static JobCreation submit(PostgresJobRepository jobs, Map<String, Object> payload, Debounce debounce,
                              Throttle throttle) {
        JobSpec spec = JobDraft.oneOff("flow", "noop", payload).withFlow(debounce, throttle).validate();
        Instant now = Instant.now();
        String jobId = Ids.newId(now);
        Run run = Run.pending(Ids.newId(now), jobId, spec.maxAttempts(), spec.priority(), now, spec.executor(),
                spec.payload(), spec.timeoutSeconds(), now);
        return jobs.create(Job.submitted(jobId, spec, now, now, null), run);
    }

    static long count(String sql) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }

    @Nested
    class Throttled {
        final TestClock clock = TestClock.at("2030-01-01T00:00:00Z");
        final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
        final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), null);

        @Test
        void eachKeyStartsAtMostItsCountPerWindowWhileOtherKeysAndUnthrottledRunsGoOn() {
            for (String key : List.of("a", "b", "c")) {
                for (int i = 0; i < 12; i++) {
                    submit(jobs, Map.of("key", key), null, new Throttle(key, 5, 2));
                }
            }
            for (int i = 0; i < 12; i++) {
                submit(jobs, Map.of("key", "free"), null, null);
            }
            pg.jdbi().useHandle(h -> h.execute("UPDATE runs SET scheduled_for = '2029-12-31T23:59:00Z'"));

            List<Run> first = queue.claim("w1", NOOP, 100, LEASE);
            assertThat(byKey(first)).containsEntry("a", 5L).containsEntry("b", 5L).containsEntry("c", 5L)
                    .containsEntry("free", 12L);
            assertThat(queue.claim("w2", NOOP, 100, LEASE)).as("the windows are full").isEmpty();

            clock.advance(Duration.ofMillis(1_999));
            assertThat(queue.claim("w2", NOOP, 100, LEASE)).isEmpty();
            clock.advance(Duration.ofMillis(2));
            assertThat(byKey(queue.claim("w2", NOOP, 100, LEASE))).containsEntry("a", 5L).containsEntry("b", 5L)
                    .containsEntry("c", 5L).hasSize(3);
            clock.advance(Duration.ofSeconds(2));
            assertThat(byKey(queue.claim("w1", NOOP, 100, LEASE))).containsEntry("a", 2L).containsEntry("b", 2L)
                    .containsEntry("c", 2L);
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'pending'")).isZero();
        }

        @Test
        void concurrentClaimersTogetherNeverStartMoreThanTheCount() throws Exception {
            for (int i = 0; i < 40; i++) {
                submit(jobs, Map.of("i", i), null, new Throttle("shared", 5, 60));
            }
            pg.jdbi().useHandle(h -> h.execute("UPDATE runs SET scheduled_for = '2029-12-31T23:59:00Z'"));
            int claimers = 8;
            CyclicBarrier start = new CyclicBarrier(claimers);
            ExecutorService pool = Executors.newFixedThreadPool(claimers);
            try {
                List<Future<Integer>> claimed = new ArrayList<>();
                for (int t = 0; t < claimers; t++) {
                    String worker = "w" + t;
                    claimed.add(pool.submit(() -> {
                        start.await();
                        int n = 0;
                        for (int round = 0; round < 5; round++) {
                            n += queue.claim(worker, NOOP, 3, LEASE).size();
                        }
                        return n;
                    }));
                }
                int total = 0;
                for (Future<Integer> f : claimed) {
                    total += f.get();
                }
                assertThat(total).isEqualTo(5);
            } finally {
                pool.shutdownNow();
            }
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'running'")).isEqualTo(5);
            assertThat(count("SELECT count(*) FROM throttle_starts WHERE throttle_key = 'shared'")).isEqualTo(5);
            assertThat(count("SELECT count(*) FROM runs WHERE status = 'pending' AND scheduled_for > "
                    + "'2030-01-01T00:00:00Z'")).as("the rest wait for the window, not due").isEqualTo(35);
            assertThat(new PostgresQueueStats(pg.jdbi(), clock).snapshot().throttled()).as("the gauge's reading")
                    .isEqualTo(35);
        }

        private Map<String, Long> byKey(List<Run> runs) {
            Map<String, Long> counts = new java.util.TreeMap<>();
            runs.forEach(r -> counts.merge(String.valueOf(r.payload().get("key")), 1L, Long::sum));
            return counts;
        }
    }

    /** The burst of issue 44's test at full size, through two real nodes, is FlowControlProcessIT's. */
    @Nested
    class Debounced {
        final PostgresJobRepository nodeA = new PostgresJobRepository(pg.jdbi(), null);
        final PostgresJobRepository nodeB = new PostgresJobRepository(pg.jdbi(), null);

        @Test
        void aBurstFromEightThreadsOnTwoRepositoriesMakesOneRunWithTheLastPayload() throws Exception {
            Debounce d = new Debounce("profile-7", 30, null, null);
            int threads = 8;
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<List<JobCreation>>> results = new ArrayList<>();
            try {
                for (int t = 0; t < threads; t++) {
                    PostgresJobRepository node = t % 2 == 0 ? nodeA : nodeB;
                    int thread = t;
                    results.add(pool.submit(() -> {
                        start.await();
                        List<JobCreation> mine = new ArrayList<>();
                        for (int i = 0; i < 40; i++) {
                            mine.add(submit(node, Map.of("n", thread * 1000 + i), d, null));
                        }
                        return mine;
                    }));
                }
                List<JobCreation> all = new ArrayList<>();
                for (Future<List<JobCreation>> f : results) {
                    all.addAll(f.get());
                }
                assertThat(all).hasSize(320);
                assertThat(all.stream().filter(JobCreation::created)).hasSize(1);
                String run = all.stream().filter(c -> c.debouncedInto() != null).findFirst().orElseThrow()
                        .debouncedInto();
                assertThat(all.stream().filter(c -> c.debouncedInto() != null)).hasSize(319)
                        .allSatisfy(c -> assertThat(c.debouncedInto()).isEqualTo(run));
            } finally {
                pool.shutdownNow();
            }
            JobCreation last = submit(nodeA, Map.of("n", "last"), d, null);
            assertThat(count("SELECT count(*) FROM runs WHERE debounce_key = 'profile-7'")).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM jobs WHERE debounce ->> 'key' = 'profile-7'")).isEqualTo(1);
            Map<String, Object> row = pg.jdbi().withHandle(h -> h.createQuery(
                    "SELECT payload ->> 'n' AS n, debounced, scheduled_for > now() + interval '25 seconds' AS later "
                            + "FROM runs WHERE id = CAST(:id AS uuid)").bind("id", last.debouncedInto()).mapToMap().one());
            assertThat(row).containsEntry("n", "last").containsEntry("debounced", 320).containsEntry("later", true);
            assertThat(last.job().spec().payload()).containsEntry("n", "last");
        }

        @Test
        void maxWaitBoundsATrailingRunUnderASteadyStream() throws Exception {
            Debounce d = new Debounce("stream", 1, 2, "trailing");
            Instant first = Instant.now();
            JobCreation head = submit(nodeA, Map.of("n", 0), d, null);
            assertThat(head.created()).isTrue();
            List<String> runs = new ArrayList<>();
            for (int i = 1; Instant.now().isBefore(first.plusMillis(3_000)); i++) {
                JobCreation c = submit(i % 2 == 0 ? nodeA : nodeB, Map.of("n", i), d, null);
                runs.add(c.debouncedInto() != null ? c.debouncedInto() : c.run().id());
                Thread.sleep(100); // the stream's pace: a submission every 100 ms, not a wait for a result
            }
            Instant due = pg.jdbi().withHandle(h -> h.createQuery("SELECT scheduled_for FROM runs WHERE id = "
                    + "CAST(:id AS uuid)").bind("id", head.run().id()).mapTo(Instant.class).one());
            assertThat(due).isBefore(first.plusMillis(2_500));
            assertThat(runs.stream().distinct().count()).as("a second run took the stream past max wait")
                    .isGreaterThanOrEqualTo(2);
        }

        @Test
        void leadingRunsTheFirstAtOnceAndJoinsTheRestOfThePeriodToIt() throws Exception {
            Debounce d = new Debounce("lead", 1, null, "leading");
            JobCreation first = submit(nodeA, Map.of("n", 1), d, null);
            assertThat(first.created()).isTrue();
            JobCreation second = submit(nodeB, Map.of("n", 2), d, null);
            assertThat(second.debouncedInto()).isEqualTo(first.run().id());
            assertThat(count("SELECT count(*) FROM runs WHERE debounce_key = 'lead' AND scheduled_for <= now()"))
                    .as("due at once").isEqualTo(1);
            assertThat(second.job().spec().payload()).as("a leading run keeps its payload").containsEntry("n", 1);
            long deadline = System.nanoTime() + 10_000_000_000L; // until the leading run's period has passed
            while (count("SELECT count(*) FROM runs WHERE debounce_key = 'lead' AND debounce_until > now()") > 0) {
                assertThat(System.nanoTime()).as("the period ended").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(submit(nodeA, Map.of("n", 3), d, null).created()).isTrue();
        }

        @Test
        void enqueueJoinsTheSameKeyAndSaysSo() {
            pg.jdbi().useHandle(h -> h.execute("INSERT INTO executors (name, last_seen_by) VALUES ('noop', 'test') ON CONFLICT DO NOTHING"));
            JobCreation api = submit(nodeA, Map.of("sleep_ms", 1), new Debounce("mixed", 30, null, null), null);
            Map<String, Object> sql = pg.jdbi().withHandle(h -> h.createQuery(
                    "SELECT * FROM enqueue('flow', 'noop', '{\"sleep_ms\": 2}', debounce => "
                            + "'{\"key\": \"mixed\", \"period_seconds\": 30}')").mapToMap().one());
            assertThat(sql).containsEntry("run_id", api.run().id()).containsEntry("created", false)
                    .containsEntry("debounced", true);
            assertThat(count("SELECT count(*) FROM runs WHERE debounce_key = 'mixed' AND payload ->> 'sleep_ms' = '2'"))
                    .isEqualTo(1);
        }
    }

    /** enqueue() takes notify and flow control as the API does, and refuses a bad part naming it (SQLSTATE 22023). */
    @Nested
    class Enqueue {
        String refusedColumn(String args) {
            try {
                pg.jdbi().useHandle(h -> h.createQuery("SELECT * FROM enqueue('e', 'noop', '{}', " + args + ")")
                        .mapToMap().one());
            } catch (org.jdbi.v3.core.statement.UnableToExecuteStatementException e) {
                org.postgresql.util.PSQLException cause = (org.postgresql.util.PSQLException) e.getCause();
                assertThat(cause.getSQLState()).isEqualTo("22023");
                return cause.getServerErrorMessage().getColumn();
            }
            throw new AssertionError("not refused: " + args);
        }

        @Test
        void notifyIsStoredInItsCheckedFormAndABadOneIsNamed() {
            pg.jdbi().useHandle(h -> h.execute("INSERT INTO executors (name, last_seen_by) VALUES ('noop', 'test') "
                    + "ON CONFLICT DO NOTHING"));
            String job = pg.jdbi().withHandle(h -> h.createQuery("SELECT job_id FROM enqueue('e', 'noop', '{}', "
                    + "notify => '{\"url\": \"https://hooks.example.com/x\", \"on\": [\"recovered\", \"dead\"]}')")
                    .mapTo(String.class).one());
            String stored = pg.jdbi().withHandle(h -> h.createQuery("SELECT notify::text FROM jobs WHERE id = "
                    + "CAST(:id AS uuid)").bind("id", job).mapTo(String.class).one());
            assertThat(stored).isEqualTo("{\"on\": [\"dead\", \"recovered\"], \"url\": \"https://hooks.example.com/x\"}");
            assertThat(refusedColumn("notify => '{\"url\": \"ftp://x/\"}'")).isEqualTo("notify.url");
            assertThat(refusedColumn("notify => '{\"url\": \"https://x/\", \"on\": [\"late\"]}'")).isEqualTo("notify.on");
            assertThat(refusedColumn("notify => '{\"url\": \"https://x/\", \"to\": 1}'")).isEqualTo("notify.to");
            assertThat(refusedColumn("idempotency_key => 'notice:7'")).isEqualTo("idempotency_key");
            assertThat(refusedColumn("debounce => '{\"key\": \"k\"}'")).isEqualTo("debounce.period_seconds");
            assertThat(refusedColumn("debounce => '{\"key\": \"k\", \"period_seconds\": 5, \"edge\": \"leading\", "
                    + "\"max_wait_seconds\": 9}'")).isEqualTo("debounce.max_wait_seconds");
            assertThat(refusedColumn("debounce => '{\"key\": \"k\", \"period_seconds\": 5}', run_at => now()"))
                    .isEqualTo("debounce");
            assertThat(refusedColumn("throttle => '{\"key\": \"k\", \"count\": 0, \"per_seconds\": 1}'"))
                    .isEqualTo("throttle.count");
            assertThat(refusedColumn("throttle => '{\"key\": \"\", \"count\": 1, \"per_seconds\": 1}'"))
                    .isEqualTo("throttle.key");
            assertThat(refusedColumn("throttle => '[1]'")).isEqualTo("throttle");
        }
    }
}
