package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.RunLifecycleGuard;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.RunStatus;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.util.PSQLException;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 40, one lifecycle: every transition of {@link RunStatus}'s table driven through the SQL that performs it in
 * production (claim, acknowledgement, cancel, requeue, a workflow's parents deciding), each seen by the test
 * databases' lifecycle guard ({@link RunLifecycleGuard}), which fails any status change the table does not allow in
 * every test of this module. Its own database: the guard's record holds this class's transitions only.
 */
class RunLifecycleSqlIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migratedAlone();

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Set<String> NOOP = Set.of("noop");

    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), null);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), null);

    @Test
    void theClaimHasOneHomeAndNoOverloadOfAnOlderMigrationIsLeftToStartRunsByOtherRules() {
        List<String> claims = pg.jdbi().withHandle(h -> h.createQuery("SELECT pg_get_function_identity_arguments(p.oid) "
                + "FROM pg_proc p WHERE p.proname = 'forgeflow_claim' "
                + "AND p.pronamespace = CAST('forgeflow' AS regnamespace)").mapTo(String.class).list());
        // any function of ours with two signatures: an older one left behind by a migration that added the newer
        List<String> overloaded = pg.jdbi().withHandle(h -> h.createQuery("SELECT p.proname FROM pg_proc p "
                + "WHERE p.pronamespace = CAST('forgeflow' AS regnamespace) GROUP BY p.proname HAVING count(*) > 1")
                .mapTo(String.class).list());

        assertThat(claims).as("forgeflow_claim's signatures").hasSize(1);
        assertThat(claims.get(0)).endsWith("p_after_id uuid");
        assertThat(overloaded).isEmpty();
    }

    @Test
    void everyTransitionOfTheTableIsMadeBySqlAndNothingElseGetsThrough() {
        Jdbi jdbi = pg.jdbi();
        jdbi.useHandle(h -> h.execute("INSERT INTO executors (name, last_seen_by) VALUES ('noop', 'test') "
                + "ON CONFLICT DO NOTHING"));
        String parentOk = enqueue("name => 'parent-ok', executor => 'noop'")[0];
        String parentDies = enqueue("name => 'parent-dies', executor => 'noop', max_attempts => 2")[0];
        String[] childOk = enqueue("name => 'child-ok', executor => 'noop', depends_on => ARRAY['" + parentOk
                + "']::uuid[]");
        String[] childCancelled = enqueue("name => 'child-cancelled', executor => 'noop', depends_on => ARRAY['"
                + parentDies + "']::uuid[], on_parent_failure => 'cancel'");
        assertThat(status(childOk[1])).isEqualTo("waiting");
        assertThat(status(childCancelled[1])).isEqualTo("waiting");

        // pending > running, running > succeeded (its child: waiting > pending), running > pending (a retry)
        List<Run> first = queue.claim("w1", NOOP, 10, LEASE);
        assertThat(first).hasSize(2);
        Run ok = first.stream().filter(r -> r.jobId().equals(parentOk)).findFirst().orElseThrow();
        Run dies = first.stream().filter(r -> r.jobId().equals(parentDies)).findFirst().orElseThrow();
        queue.acknowledge(List.of(
                new Acknowledgement(fence(ok), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, null, "done", null),
                new Acknowledgement(fence(dies), AttemptOutcome.FAILED, RunStatus.PENDING, Duration.ofMillis(1), "",
                        "failed")));
        assertThat(status(childOk[1])).isEqualTo("pending");

        // running > dead (its child: waiting > cancelled)
        Run again = claimRunOf(parentDies);
        queue.acknowledge(List.of(new Acknowledgement(fence(again), AttemptOutcome.FAILED, RunStatus.DEAD, null, "",
                "failed again")));
        assertThat(status(childCancelled[1])).isEqualTo("cancelled");

        // pending > cancelled, cancelled > pending, dead > pending
        assertThat(runs.cancelPending(childOk[1], "operator")).isPresent();
        assertThat(runs.requeue(childOk[1], 1)).isPresent();
        assertThat(runs.requeue(again.id(), 1)).isPresent();

        // running > cancelled: a cancel asked of a running run, which its worker then ends as cancelled
        Run stopping = claimRunOf(childOk[0]);
        assertThat(runs.requestCancel(stopping.id())).isPresent();
        queue.acknowledge(List.of(new Acknowledgement(fence(stopping), AttemptOutcome.CANCELLED, RunStatus.CANCELLED,
                null, "", "cancelled")));

        assertThat(RunLifecycleGuard.seen(jdbi)).as("the transitions the SQL made")
                .containsExactlyInAnyOrderElementsOf(RunLifecycleGuard.allowed());

        // and the guard refuses what the table does not allow, whatever SQL tries it
        assertThatThrownBy(() -> jdbi.useHandle(h -> h.execute("UPDATE runs SET status = 'pending', "
                + "finished_at = NULL WHERE id = CAST(? AS uuid)", ok.id()))) // succeeded is final
                .hasRootCauseInstanceOf(PSQLException.class)
                .hasMessageContaining("which RunStatus does not allow")
                .satisfies(e -> assertThat(((PSQLException) rootCause(e)).getSQLState())
                        .isEqualTo(RunLifecycleGuard.SQLSTATE));
    }

    private Run claimRunOf(String jobId) {
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() - until < 0) {
            for (Run run : queue.claim("w1", NOOP, 10, LEASE)) {
                if (run.jobId().equals(jobId)) {
                    return run;
                }
                queue.release(List.of(fence(run)));
            }
        }
        throw new AssertionError("no run of job " + jobId + " became claimable");
    }

    private static RunFence fence(Run run) {
        return new RunFence(run.id(), run.workerId(), run.attempt());
    }

    /** {job id, run id} of a job enqueued through {@code forgeflow.enqueue}. */
    private static String[] enqueue(String arguments) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT job_id::text || ',' || run_id::text "
                + "FROM forgeflow.enqueue(" + arguments + ")").mapTo(String.class).one()).split(",");
    }

    private static String status(String runId) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT status FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", runId).mapTo(String.class).one());
    }

    private static Throwable rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
