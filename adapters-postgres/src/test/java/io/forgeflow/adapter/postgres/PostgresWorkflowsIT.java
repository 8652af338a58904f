package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.RunLifecycleGuard;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.workflow.Dependencies;
import io.forgeflow.domain.workflow.ParentFailure;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The database side of workflows (db/functions/forgeflow_workflows.sql) under concurrency: parents ending in
 * concurrent transactions, the leader's recheck of children the trigger could not lock, batches completed by racing
 * leaders, and the refusals of forgeflow_link_parents.
 */
class PostgresWorkflowsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresWorkflows workflows = new PostgresWorkflows(pg.jdbi(), null);

    /** A one-off parent job with its pending run; returns the run. */
    Run parent() {
        return pg.insert(aRun().dueAt(Instant.now().plusSeconds(3600)));
    }

    /** A child job waiting for {@code parents}; returns its job id. */
    String child(ParentFailure policy, Run... parents) {
        Job job = aJob().named("child").build();
        Run waiting = Run.pending(Ids.newId(Instant.now()), job.id(), 1, 5, Instant.now(), "noop", java.util.Map.of(),
                60, Instant.now()).waitingForParents();
        List<String> ids = new ArrayList<>();
        for (Run p : parents) {
            ids.add(p.jobId());
        }
        workflows.createWithParents(job, waiting, new Dependencies(ids, policy));
        return job.id();
    }

    String statusOfRunOf(String jobId) {
        try (Handle h = pg.jdbi().open()) {
            return h.select("SELECT status FROM runs WHERE job_id = CAST(? AS uuid) ORDER BY id DESC LIMIT 1", jobId)
                    .mapTo(String.class).one();
        }
    }

    static void end(Handle h, Run run, String status) {
        RunLifecycleGuard.shortcut(h, "UPDATE runs SET status = ?, finished_at = now() WHERE id = CAST(? AS uuid)", status, run.id());
    }

    /** Issue 39: a dead parent requeued reopens the children its death cancelled; they run once it succeeds. */
    @Test
    void requeueingADeadParentReopensTheChildrenItsDeathCancelledAndAFixedParentFinishesTheWorkflow() {
        Run a = parent();
        String c = child(ParentFailure.CANCEL, a);
        String independent = child(ParentFailure.CANCEL, parent());
        try (Handle h = pg.jdbi().open()) {
            end(h, a, "dead");
        }
        assertThat(statusOfRunOf(c)).isEqualTo("cancelled");
        PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), null);

        assertThat(runs.requeue(a.id(), 3)).isPresent();

        assertThat(statusOfRunOf(c)).as("it waits for its parent again").isEqualTo("waiting");
        assertThat(statusOfRunOf(independent)).isEqualTo("waiting");
        assertThat(jobStatus(c)).isEqualTo("active");
        try (Handle h = pg.jdbi().open()) {
            end(h, a, "succeeded");
        }
        assertThat(statusOfRunOf(c)).isEqualTo("pending");
    }

    /** Issue 39: a parent purged while its children wait decides them as if it had been cancelled. */
    @Test
    void aParentPurgedWhileItsChildrenWaitDecidesThemAsIfCancelled() {
        Run a = parent();
        Run b = parent();
        String cancels = child(ParentFailure.CANCEL, a);
        String runsAnyway = child(ParentFailure.RUN, a, b);
        try (Handle h = pg.jdbi().open()) {
            end(h, b, "succeeded");
            h.execute("UPDATE jobs SET status = 'deleted' WHERE id = CAST(? AS uuid)", a.jobId());
            h.execute("DELETE FROM jobs WHERE id = CAST(? AS uuid)", a.jobId());
        }
        assertThat(statusOfRunOf(cancels)).isEqualTo("cancelled");
        assertThat(jobStatus(cancels)).isEqualTo("completed");
        assertThat(statusOfRunOf(runsAnyway)).as("on_parent_failure run: its other parent succeeded").isEqualTo("pending");
    }

    /** Issue 39: retention removed a dead parent's runs; the child's other parent then ends: the child is decided. */
    @Test
    void aParentWhoseRunsRetentionRemovedCountsAsEnded() {
        Run a = parent();
        Run b = parent();
        String c = child(ParentFailure.RUN, a, b);
        try (Handle h = pg.jdbi().open()) {
            end(h, a, "dead");
            h.execute("DELETE FROM runs WHERE id = CAST(? AS uuid)", a.id());
            assertThat(statusOfRunOf(c)).isEqualTo("waiting");
            end(h, b, "succeeded");
        }
        assertThat(statusOfRunOf(c)).isEqualTo("pending");
    }

    String jobStatus(String jobId) {
        try (Handle h = pg.jdbi().open()) {
            return h.select("SELECT status FROM jobs WHERE id = CAST(? AS uuid)", jobId).mapTo(String.class).one();
        }
    }

    @Test
    void twoParentsEndingInConcurrentTransactionsReleaseTheChildOnceTheLeaderRechecksIt() {
        Run p1 = parent();
        Run p2 = parent();
        String c = child(ParentFailure.CANCEL, p1, p2);
        assertThat(statusOfRunOf(c)).isEqualTo("waiting");

        try (Handle t1 = pg.jdbi().open(); Handle t2 = pg.jdbi().open()) {
            t1.begin();
            end(t1, p1, "succeeded"); // its trigger holds the child's waiting run until t1 commits
            t2.begin();
            end(t2, p2, "succeeded"); // the trigger finds the child locked: it does not wait, it leaves a recheck
            t1.commit();
            t2.commit();
        }
        // neither transaction saw the other's parent end: the child waits for the leader
        assertThat(statusOfRunOf(c)).isEqualTo("waiting");
        assertThat(workflows.recheckChildren(100)).isEqualTo(1);
        assertThat(statusOfRunOf(c)).isEqualTo("pending");
        assertThat(workflows.recheckChildren(100)).isZero();
    }

    @Test
    void aChildLinkedWhileItsParentEndsIsDecidedWhicheverCommitsFirst() throws Exception {
        Run a = parent();
        child(ParentFailure.CANCEL, a); // an earlier child marked the parent's run already
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<String> late;
        try (Handle ending = pg.jdbi().open()) {
            ending.begin();
            end(ending, a, "dead"); // not committed yet
            late = pool.submit(() -> child(ParentFailure.CANCEL, a));
            Thread.sleep(300);
            assertThat(late.isDone()).as("the link waits for the parent's end to commit").isFalse();
            ending.commit();
        }
        String c = late.get();
        pool.shutdown();
        assertThat(statusOfRunOf(c)).isEqualTo("cancelled");
    }

    @Test
    void parentsEndingOneAfterTheOtherReleaseTheChildInTheSecondsTransaction() {
        Run p1 = parent();
        Run p2 = parent();
        String c = child(ParentFailure.CANCEL, p1, p2);
        try (Handle h = pg.jdbi().open()) {
            end(h, p1, "succeeded");
            assertThat(statusOfRunOf(c)).isEqualTo("waiting");
            end(h, p2, "succeeded");
        }
        assertThat(statusOfRunOf(c)).isEqualTo("pending");
        assertThat(workflows.recheckChildren(100)).isZero();
    }

    @Test
    void manyParentsEndingConcurrentlyNeverLoseTheChild() throws Exception {
        for (int round = 0; round < 5; round++) {
            List<Run> parents = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                parents.add(parent());
            }
            String c = child(ParentFailure.CANCEL, parents.toArray(new Run[0]));
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> ends = new ArrayList<>();
            for (Run p : parents) {
                ends.add(pool.submit((Callable<Void>) () -> {
                    go.await();
                    try (Handle h = pg.jdbi().open()) {
                        end(h, p, "succeeded");
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : ends) {
                f.get();
            }
            pool.shutdown();
            workflows.recheckChildren(100);
            assertThat(statusOfRunOf(c)).as("round " + round).isEqualTo("pending");
        }
    }

    @Test
    void anUnknownOrRecurringParentIsRefusedAndNothingIsStored() {
        Job recurring = pg.insert(aJob().recurring("0 3 * * *", Instant.now().plusSeconds(60)));
        Job job = aJob().named("orphan").build();
        Run waiting = Run.pending(Ids.newId(Instant.now()), job.id(), 1, 5, Instant.now(), "noop", java.util.Map.of(),
                60, Instant.now()).waitingForParents();
        String unknown = Ids.newId(Instant.now());
        assertThatThrownBy(() -> workflows.createWithParents(job, waiting,
                new Dependencies(List.of(unknown), ParentFailure.CANCEL)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("no job " + unknown)
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("depends_on");
        assertThatThrownBy(() -> workflows.createWithParents(job, waiting,
                new Dependencies(List.of(recurring.id()), ParentFailure.CANCEL)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("recurring");
        try (Handle h = pg.jdbi().open()) {
            assertThat(h.select("SELECT count(*) FROM jobs WHERE id = CAST(? AS uuid)", job.id()).mapTo(Integer.class).one())
                    .isZero();
        }
    }

    @Test
    void aBatchIsCompletedOnceByRacingLeadersWithItsCountsInTheOnCompletePayload() throws Exception {
        Run a = parent();
        Run b = parent();
        String batchId = Ids.newId(Instant.now());
        Job then = aJob().named("then").build();
        Run thenRun = Run.pending(Ids.newId(Instant.now()), then.id(), 1, 5, Instant.now(), "noop", java.util.Map.of(),
                60, Instant.now()).waitingForParents();
        pg.insert(then);
        pg.insert(thenRun);
        try (Handle h = pg.jdbi().open()) {
            h.execute("INSERT INTO batches (id, request_hash, total, job_ids, on_complete_job_id) "
                    + "VALUES (CAST(? AS uuid), 'h', 2, ARRAY[CAST(? AS uuid), CAST(? AS uuid)], CAST(? AS uuid))",
                    batchId, a.jobId(), b.jobId(), then.id());
            h.execute("UPDATE jobs SET batch_id = CAST(? AS uuid) WHERE id IN (CAST(? AS uuid), CAST(? AS uuid))",
                    batchId, a.jobId(), b.jobId());
            assertThat(workflows.completeBatches(10)).isEmpty(); // both jobs live
            RunLifecycleGuard.shortcut(h, "UPDATE runs SET status = 'succeeded', finished_at = now() WHERE id = CAST(? AS uuid)", a.id());
            RunLifecycleGuard.shortcut(h, "UPDATE runs SET status = 'dead', finished_at = now() WHERE id = CAST(? AS uuid)", b.id());
            h.execute("UPDATE jobs SET status = 'completed' WHERE batch_id = CAST(? AS uuid)", batchId);
        }
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<List<String>>> leaders = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            leaders.add(pool.submit(() -> {
                go.await();
                return workflows.completeBatches(10);
            }));
        }
        go.countDown();
        int completions = 0;
        for (Future<List<String>> f : leaders) {
            completions += f.get().size();
        }
        pool.shutdown();
        assertThat(completions).isEqualTo(1);
        assertThat(workflows.completeBatches(10)).isEmpty();
        Workflows.BatchProgress done = workflows.findBatch(batchId).orElseThrow();
        assertThat(done.status()).isEqualTo("completed");
        assertThat(done.succeeded()).isEqualTo(1);
        assertThat(done.dead()).isEqualTo(1);
        assertThat(done.cancelled()).isZero();
        try (Handle h = pg.jdbi().open()) {
            assertThat(h.select("SELECT status FROM runs WHERE id = CAST(? AS uuid)", thenRun.id()).mapTo(String.class)
                    .one()).isEqualTo("pending");
            String payload = h.select("SELECT payload::text FROM runs WHERE id = CAST(? AS uuid)", thenRun.id())
                    .mapTo(String.class).one();
            assertThat(payload).as("a noop job reads no counts: its payload stays").isEqualTo("{}");
        }
    }

    @Test
    void theCountsReachEachExecutorWhereItReadsThem() {
        try (Handle h = pg.jdbi().open()) {
            String id = "0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b";
            String java = h.select("SELECT forgeflow_batch_payload('java', '{\"handler\": \"h\", \"args\": {\"x\": 1}}', "
                    + "CAST(? AS uuid), 3, 1, 0)::text", id).mapTo(String.class).one();
            assertThat(java).contains("\"args\": {\"x\": 1, \"dead\": 1, \"batch_id\": \"" + id + "\"");
            String post = h.select("SELECT forgeflow_batch_payload('http', '{\"url\": \"https://x\", \"body\": {\"a\": 1}}', "
                    + "CAST(? AS uuid), 3, 1, 0)::text", id).mapTo(String.class).one();
            assertThat(post).contains("\"X-ForgeFlow-Batch-Succeeded\": \"3\"").contains("\"a\": 1")
                    .contains("\"succeeded\": 3");
            String get = h.select("SELECT forgeflow_batch_payload('http', '{\"url\": \"https://x\", \"method\": \"GET\"}', "
                    + "CAST(? AS uuid), 3, 1, 0)::text", id).mapTo(String.class).one();
            assertThat(get).contains("X-ForgeFlow-Batch-Id").doesNotContain("\"body\"");
            String text = h.select("SELECT forgeflow_batch_payload('http', '{\"url\": \"https://x\", \"body\": \"raw\"}', "
                    + "CAST(? AS uuid), 3, 1, 0)::text", id).mapTo(String.class).one();
            assertThat(text).contains("\"body\": \"raw\"");
            String shell = h.select("SELECT forgeflow_batch_payload('shell', '{\"command\": \"echo hi\"}', "
                    + "CAST(? AS uuid), 3, 1, 0)::text", id).mapTo(String.class).one();
            assertThat(shell).contains("FORGEFLOW_BATCH_ID=" + id + " FORGEFLOW_BATCH_SUCCEEDED=3")
                    .contains("; echo hi\"");
            String noop = h.select("SELECT forgeflow_batch_payload('noop', '{\"sleep_ms\": 5}', CAST(? AS uuid), 3, 1, 0)::text",
                    id).mapTo(String.class).one();
            assertThat(noop).isEqualTo("{\"sleep_ms\": 5}");
            String other = h.select("SELECT forgeflow_batch_payload('plugin', '{}', CAST(? AS uuid), 3, 1, 0)::text", id)
                    .mapTo(String.class).one();
            assertThat(other).contains("\"succeeded\": 3");
        }
    }
}
