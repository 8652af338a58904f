package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.Run;
import org.jdbi.v3.sqlobject.config.KeyColumn;
import org.jdbi.v3.sqlobject.config.ValueColumn;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The statements on {@code runs} and {@code run_attempts}, one file each under {@code RunSql/}. Ids are bound as text
 * and cast to {@code uuid} in SQL; callers only pass well-formed ids. {@code :now} is null in production.
 *
 * <p>The run queue's statements ({@code claim}, {@code endAttempts}, {@code heartbeat}, {@code cancellationsFor},
 * {@code expiredLeases}) have their files here too, but {@link PostgresRunQueue} runs them on plain JDBC
 * ({@link SqlFile}, {@link JdbcStatements}) rather than through this SqlObject.
 */
@UseClasspathSqlLocator
interface RunSql {

    @SqlQuery
    Run insert(@Bind("id") String id, @Bind("jobId") String jobId, @Bind("status") String status,
               @Bind("priority") int priority, @Bind("scheduledFor") Instant scheduledFor,
               @Bind("attempt") int attempt, @Bind("maxAttempts") int maxAttempts, @Bind("executor") String executor,
               @Bind("payload") Map<String, Object> payload, @Bind("timeoutSeconds") int timeoutSeconds,
               @Bind("createdAt") Instant createdAt, @Bind("now") Instant now,
               @Bind("traceOrigin") String traceOrigin, @Bind("traceState") String traceState);

    /** Inserts a new run as given (a first run or a manual trigger: no scheduler tick). */
    default Run insert(Run run, Instant now) {
        return insert(run.id(), run.jobId(), run.status().wireName(), run.priority(), run.scheduledFor(),
                run.attempt(), run.maxAttempts(), run.executor(), run.payload(), run.timeoutSeconds(),
                run.createdAt(), now, origin(run) == null ? null : origin(run).traceparent(),
                origin(run) == null ? null : origin(run).tracestate());
    }

    private static io.forgeflow.domain.trace.TraceContext origin(Run run) {
        return run.trace() == null ? null : run.trace().origin();
    }

    @SqlQuery
    Optional<Run> find(@Bind("id") String id);

    @SqlQuery
    List<Attempt> attempts(@Bind("runId") String runId);

    /** {@link #find} of a run that moved to the finished history. */
    @SqlQuery
    Optional<Run> findInHistory(@Bind("id") String id);

    /** {@link #attempts} of a run that moved to the finished history. */
    @SqlQuery
    List<Attempt> attemptsInHistory(@Bind("runId") String runId);

    @SqlQuery
    boolean isLive(@Bind("id") String id);

    /** GET /api/runs with its filters (null: none), whole runs; run it with custom plans (FilteredLists). */
    @SqlQuery
    List<Run> listMatching(@Bind("jobId") String jobId, @Bind("status") String status, @Bind("queue") String queue,
                           @Bind("labels") String labels, @Bind("scheduledAfter") Instant scheduledAfter,
                           @Bind("scheduledBefore") Instant scheduledBefore,
                           @Bind("finishedAfter") Instant finishedAfter, @Bind("tenant") String tenant,
                           @Bind("after") String afterId, @Bind("limit") int limit);

    /** As listMatching, for a response: the output's last {@code tail} characters, no payload. */
    @SqlQuery
    List<Rows.BudgetedRun> listForDisplayMatching(@Bind("jobId") String jobId, @Bind("status") String status,
                                                  @Bind("queue") String queue, @Bind("labels") String labels,
                                                  @Bind("scheduledAfter") Instant scheduledAfter,
                                                  @Bind("scheduledBefore") Instant scheduledBefore,
                                                  @Bind("finishedAfter") Instant finishedAfter,
                                                  @Bind("tenant") String tenant,
                                                  @Bind("after") String afterId, @Bind("limit") int limit,
                                                  @Bind("tail") int outputTail, @Bind("overhead") int itemOverhead,
                                                  @Bind("budget") long budget);

    @SqlQuery
    @KeyColumn("status")
    @ValueColumn("runs")
    Map<String, Long> countByStatus(@Bind("tenant") String tenant);

    @SqlQuery
    Optional<Run> cancelPending(@Bind("id") String id, @Bind("reason") String reason, @Bind("now") Instant now);

    @SqlQuery
    Optional<Run> requestCancel(@Bind("id") String id);

    @SqlQuery
    Optional<Run> requeue(@Bind("id") String id, @Bind("attemptBudget") int attemptBudget, @Bind("now") Instant now);
}
