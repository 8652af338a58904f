package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.run.Run;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The writer of {@link PostgresJobRepository}'s group commit of one-off submissions, on plain JDBC: one submission
 * alone (JobSql/insertWithRun.sql), or a batch in one statement (JobSql/insertBatchWithRuns.sql). Concurrent
 * submissions share a commit ({@link GroupCommit}), and a batch is one statement (each submission still gets its own
 * outcome: its stored job, or none when its key was taken). Jobs are inserted in order of idempotency key, so two
 * batches holding the same keys take their locks in the same order and cannot deadlock; within one batch a second job
 * with a key the first stored finds it taken, as it would have a moment later.
 */
final class JobSubmissionWriter implements GroupCommit.Writer<JobSubmissionWriter.Submission, Optional<Job>> {
    /** The submission statement runs on plain JDBC (JdbcStatements); its text stays in JobSql/insertWithRun.sql. */
    private static final SqlFile INSERT_WITH_RUN = SqlFile.load("JobSql/insertWithRun.sql");
    private static final String INSERT_WITH_RUN_SQL = INSERT_WITH_RUN.jdbc();
    /** Several submissions in one statement: a group commit's batch (JobSql/insertBatchWithRuns.sql). */
    private static final SqlFile INSERT_BATCH = SqlFile.load("JobSql/insertBatchWithRuns.sql");
    private static final String INSERT_BATCH_SQL = INSERT_BATCH.jdbc();

    private final JdbcStatements statements;

    JobSubmissionWriter(JdbcStatements statements) {
        this.statements = statements;
    }

    /** One one-statement submission: a job, its first run, and the time to store (null: the database's). */
    record Submission(Job job, Run run, Instant now) {
    }

    @Override
    public List<Optional<Job>> writeTogether(List<Submission> items) {
        int n = items.size();
        String[] ids = new String[n], names = new String[n], executors = new String[n], payloads = new String[n],
                cronExprs = new String[n], runAts = new String[n], timezones = new String[n],
                catchUps = new String[n], keys = new String[n], statuses = new String[n],
                nextRunAts = new String[n], createdAts = new String[n], updatedAts = new String[n],
                queues = new String[n], concurrencyKeys = new String[n], overlaps = new String[n],
                runIds = new String[n], runScheduledFors = new String[n], runCreatedAts = new String[n],
                nows = new String[n], traceparents = new String[n], tracestates = new String[n],
                labels = new String[n], tenants = new String[n];
        Integer[] priorities = new Integer[n], maxAttempts = new Integer[n], timeouts = new Integer[n],
                maxConcurrents = new Integer[n], runPriorities = new Integer[n], runMaxAttempts = new Integer[n],
                retryBases = new Integer[n], retryMaxes = new Integer[n];
        java.util.Map<String, Integer> index = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) {
            Job job = items.get(i).job();
            Run run = items.get(i).run();
            JobSpec spec = job.spec();
            index.put(job.id().toLowerCase(java.util.Locale.ROOT), i);
            ids[i] = job.id();
            names[i] = spec.name();
            executors[i] = spec.executor();
            payloads[i] = PayloadJson.write(spec.payload());
            labels[i] = PayloadJson.write(spec.labels());
            tenants[i] = job.tenant();
            cronExprs[i] = spec.cronExpr();
            runAts[i] = text(spec.runAt());
            timezones[i] = spec.timezone();
            priorities[i] = spec.priority();
            maxAttempts[i] = spec.maxAttempts();
            timeouts[i] = spec.timeoutSeconds();
            catchUps[i] = spec.catchUp().wireName();
            keys[i] = spec.idempotencyKey();
            statuses[i] = job.status().wireName();
            nextRunAts[i] = text(job.nextRunAt());
            createdAts[i] = text(job.createdAt());
            updatedAts[i] = text(job.updatedAt());
            queues[i] = spec.queue();
            concurrencyKeys[i] = spec.concurrencyKey();
            maxConcurrents[i] = spec.maxConcurrent();
            overlaps[i] = spec.overlap().wireName();
            runIds[i] = run.id();
            runPriorities[i] = run.priority();
            runScheduledFors[i] = text(run.scheduledFor());
            runMaxAttempts[i] = run.maxAttempts();
            runCreatedAts[i] = text(run.createdAt());
            nows[i] = text(items.get(i).now());
            traceparents[i] = job.trace() == null ? null : job.trace().traceparent();
            tracestates[i] = job.trace() == null ? null : job.trace().tracestate();
            retryBases[i] = JobSql.retryBase(spec);
            retryMaxes[i] = JobSql.retryMax(spec);
        }
        return statements.inTransaction(INSERT_BATCH, connection -> {
            List<Optional<Job>> outcomes = new ArrayList<>(java.util.Collections.nCopies(n, Optional.<Job>empty()));
            try (java.sql.PreparedStatement statement = connection.prepareStatement(INSERT_BATCH_SQL)) {
                INSERT_BATCH.bind(statement)
                        .textArray("ids", ids).textArray("names", names).textArray("executors", executors)
                        .textArray("payloads", payloads).textArray("cronExprs", cronExprs)
                        .textArray("runAts", runAts).textArray("timezones", timezones)
                        .integerArray("priorities", priorities).integerArray("maxAttempts", maxAttempts)
                        .integerArray("timeoutSeconds", timeouts).textArray("catchUps", catchUps)
                        .textArray("idempotencyKeys", keys).textArray("statuses", statuses)
                        .textArray("nextRunAts", nextRunAts).textArray("createdAts", createdAts)
                        .textArray("updatedAts", updatedAts).textArray("queues", queues)
                        .textArray("concurrencyKeys", concurrencyKeys).integerArray("maxConcurrents", maxConcurrents)
                        .textArray("overlaps", overlaps).textArray("runIds", runIds)
                        .integerArray("runPriorities", runPriorities)
                        .textArray("runScheduledFors", runScheduledFors)
                        .integerArray("runMaxAttempts", runMaxAttempts).textArray("runCreatedAts", runCreatedAts)
                        .textArray("nows", nows).textArray("traceparents", traceparents)
                        .textArray("tracestates", tracestates).integerArray("retryBases", retryBases)
                        .integerArray("retryMaxes", retryMaxes).textArray("labels", labels)
                        .textArray("tenants", tenants).done();
                try (java.sql.ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        Job stored = Rows.job(rows);
                        Integer at = index.get(stored.id().toLowerCase(java.util.Locale.ROOT));
                        if (at == null) {
                            throw new java.sql.SQLException("the batch returned job " + stored.id()
                                    + ", which it was not given");
                        }
                        outcomes.set(at, Optional.of(stored));
                    }
                }
            }
            return outcomes;
        });
    }

    @Override
    public Optional<Job> writeAlone(Submission item) {
        List<Job> stored = statements.list(INSERT_WITH_RUN, c -> c.prepareStatement(INSERT_WITH_RUN_SQL),
                ps -> bind(ps, item), Rows::job);
        return stored.stream().findFirst();
    }

    /** An instant as PostgreSQL reads a {@code timestamptz} (ISO-8601 in UTC); null stays null. */
    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private static void bind(java.sql.PreparedStatement ps, Submission item) throws java.sql.SQLException {
        Job job = item.job();
        Run run = item.run();
        JobSpec spec = job.spec();
        INSERT_WITH_RUN.bind(ps)
                .text("id", job.id()).text("name", spec.name()).text("executor", spec.executor())
                .jsonb("payload", spec.payload()).text("cronExpr", spec.cronExpr())
                .timestamp("runAt", spec.runAt()).text("timezone", spec.timezone())
                .integer("priority", spec.priority()).integer("maxAttempts", spec.maxAttempts())
                .integer("timeoutSeconds", spec.timeoutSeconds()).text("catchUp", spec.catchUp().wireName())
                .text("idempotencyKey", spec.idempotencyKey()).text("status", job.status().wireName())
                .timestamp("nextRunAt", job.nextRunAt()).timestamp("createdAt", job.createdAt())
                .timestamp("updatedAt", job.updatedAt()).text("runId", run.id())
                .integer("runPriority", run.priority()).timestamp("runScheduledFor", run.scheduledFor())
                .integer("runMaxAttempts", run.maxAttempts()).timestamp("runCreatedAt", run.createdAt())
                .text("queue", spec.queue()).text("concurrencyKey", spec.concurrencyKey())
                .integer("maxConcurrent", spec.maxConcurrent()).text("overlap", spec.overlap().wireName())
                .timestamp("now", item.now())
                .text("traceparent", job.trace() == null ? null : job.trace().traceparent())
                .text("tracestate", job.trace() == null ? null : job.trace().tracestate())
                .integer("retryBaseSeconds", JobSql.retryBase(spec))
                .integer("retryMaxSeconds", JobSql.retryMax(spec))
                .text("labels", PayloadJson.write(spec.labels())).text("tenant", job.tenant()).done();
    }
}
