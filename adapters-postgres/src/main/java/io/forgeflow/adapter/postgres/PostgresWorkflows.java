package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.workflow.BatchPlan;
import io.forgeflow.domain.workflow.Dependencies;
import io.forgeflow.domain.workflow.ParentFailure;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Array;
import io.forgeflow.domain.tenant.Tenants;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Workflows on PostgreSQL ({@link Workflows}): the SQL under {@code WorkflowSql/} and the functions of
 * db/functions/forgeflow_workflows.sql, which decide a waiting run where its parent's run ends.
 */
public final class PostgresWorkflows implements Workflows {
    private static final SqlFile INSERT_BATCH = SqlFile.load("WorkflowSql/insertBatch.sql");
    private static final SqlFile INSERT_JOBS = SqlFile.load("WorkflowSql/insertJobs.sql");
    private static final SqlFile INSERT_EDGES = SqlFile.load("WorkflowSql/insertEdges.sql");
    private static final SqlFile BATCH = SqlFile.load("WorkflowSql/batch.sql");
    private static final SqlFile BATCH_BY_KEY = SqlFile.load("WorkflowSql/batchByKey.sql");
    private static final SqlFile PARENTS = SqlFile.load("WorkflowSql/parents.sql");
    private static final SqlFile CHILDREN = SqlFile.load("WorkflowSql/children.sql");
    private static final SqlFile WORKFLOW_OF = SqlFile.load("WorkflowSql/workflowOf.sql");
    private static final String INSERT_BATCH_SQL = INSERT_BATCH.jdbc();
    private static final String INSERT_JOBS_SQL = INSERT_JOBS.jdbc();
    private static final String INSERT_EDGES_SQL = INSERT_EDGES.jdbc();
    private static final String BATCH_SQL = BATCH.jdbc();
    private static final String BATCH_BY_KEY_SQL = BATCH_BY_KEY.jdbc();
    private static final String PARENTS_SQL = PARENTS.jdbc();
    private static final String CHILDREN_SQL = CHILDREN.jdbc();
    private static final String WORKFLOW_OF_SQL = WORKFLOW_OF.jdbc();
    /** Jobs per insert statement of a batch: arrays of this size bind and plan quickly. */
    static final int CHUNK = 1_000;
    private static final String INVALID_PARAMETER = "22023";

    private final Jdbi jdbi;
    private final DbClock clock;

    /** @param testClock null in production (the database clock decides); a fixed clock in tests */
    public PostgresWorkflows(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public JobCreation createWithParents(Job given, Run waitingRun, Dependencies dependencies) {
        Objects.requireNonNull(dependencies, "dependencies");
        Job job = StoredKeys.stored(given);
        if (dependencies.isEmpty()) {
            throw new IllegalArgumentException("a job with parents needs at least one");
        }
        try {
            return jdbi.inTransaction(handle -> {
                JobSql jobs = handle.attach(JobSql.class);
                Instant now = clock.now();
                Optional<Job> stored = jobs.insert(job, now);
                if (stored.isEmpty()) {
                    return jobs.findByIdempotencyKey(job.spec().idempotencyKey())
                            .map(holder -> new JobCreation(holder, false))
                            .orElseThrow(() -> new IllegalStateException("idempotency key "
                                    + given.spec().idempotencyKey() + " is taken by a job that could not be read"));
                }
                handle.createUpdate("UPDATE jobs SET on_parent_failure = :policy WHERE id = CAST(:id AS uuid)")
                        .bind("policy", dependencies.onParentFailure().wireName()).bind("id", job.id()).execute();
                Run run = handle.attach(RunSql.class).insert(waitingRun, now);
                String decided = handle.createQuery(
                                "SELECT forgeflow_link_parents(CAST(:id AS uuid), CAST(:parents AS uuid[]))")
                        .bind("id", job.id()).bind("parents", dependencies.parents().toArray(new String[0]))
                        .mapTo(String.class).one();
                if (decided != null) {
                    run = handle.attach(RunSql.class).find(run.id()).orElse(run);
                }
                return new JobCreation(stored.get(), true, run);
            });
        } catch (RuntimeException e) {
            throw asValidation(e);
        }
    }

    @Override
    public BatchCreation createBatch(BatchPlan plan, List<Job> givenJobs, List<Run> runs, Job givenOnComplete,
                                     Run onCompleteRun, String batchId, String requestHash, Instant now) {
        if (givenJobs.size() != plan.jobs().size() || runs.size() != givenJobs.size()) {
            throw new IllegalArgumentException("a batch needs one job and one run per planned job");
        }
        // a batch and all its jobs are in one tenant: its jobs'
        String tenant = givenJobs.isEmpty() ? io.forgeflow.domain.tenant.Tenants.DEFAULT : givenJobs.get(0).tenant();
        if (givenJobs.stream().anyMatch(j -> !j.tenant().equals(tenant))
                || givenOnComplete != null && !givenOnComplete.tenant().equals(tenant)) {
            throw new IllegalArgumentException("a batch's jobs are all in one tenant");
        }
        List<Job> jobs = givenJobs.stream().map(StoredKeys::stored).toList();
        Job onComplete = givenOnComplete == null ? null : StoredKeys.stored(givenOnComplete);
        String batchKey = io.forgeflow.domain.tenant.Tenants.scopedKey(tenant, plan.idempotencyKey());
        try {
            return jdbi.inTransaction(handle -> {
                Connection c = handle.getConnection();
                Instant at = clock.now();
                boolean[] parentInBatch = new boolean[plan.jobs().size()];
                String[] idByIndex = new String[plan.jobs().size()];
                for (int k = 0; k < plan.jobs().size(); k++) {
                    BatchPlan.Planned p = plan.jobs().get(k);
                    idByIndex[p.index()] = jobs.get(k).id();
                    for (int parent : p.batchParents()) {
                        parentInBatch[parent] = true;
                    }
                }
                Map<String, String> refs = new LinkedHashMap<>();
                for (BatchPlan.Planned p : plan.jobs()) {
                    if (p.ref() != null) {
                        refs.put(p.ref(), idByIndex[p.index()]);
                    }
                }
                boolean stored = insertBatch(c, plan.name(), batchKey, tenant, batchId, requestHash, onComplete,
                        idByIndex, refs, at);
                if (!stored) {
                    Holder holder = batchByKey(c, batchKey);
                    BatchProgress existing = unchecked(() -> findBatch(handle, holder.id())).orElseThrow(
                            () -> new IllegalStateException("batch key " + plan.idempotencyKey()
                                    + " is taken by a batch that could not be read"));
                    return new BatchCreation(existing, holder.jobIds(), holder.refs(), false);
                }
                for (int from = 0; from < jobs.size(); from += CHUNK) {
                    int to = Math.min(jobs.size(), from + CHUNK);
                    List<ParentFailure> policies = new ArrayList<>(to - from);
                    boolean[] children = new boolean[to - from];
                    for (int k = from; k < to; k++) {
                        BatchPlan.Planned p = plan.jobs().get(k);
                        policies.add(p.hasParents() ? p.onParentFailure() : null);
                        children[k - from] = parentInBatch[p.index()];
                    }
                    insertJobs(c, jobs.subList(from, to), runs.subList(from, to), policies, children, batchId, tenant,
                            at);
                }
                insertEdges(c, plan, idByIndex);
                for (BatchPlan.Planned p : plan.jobs()) {
                    if (!p.externalParents().isEmpty()) {
                        handle.createQuery("SELECT forgeflow_link_parents(CAST(:id AS uuid), CAST(:parents AS uuid[]))")
                                .bind("id", idByIndex[p.index()])
                                .bind("parents", p.externalParents().toArray(new String[0]))
                                .mapTo(String.class).one();
                    }
                }
                if (onComplete != null) {
                    insertJobs(c, List.of(onComplete), List.of(onCompleteRun), Arrays.asList((ParentFailure) null),
                            new boolean[1], null, tenant, at);
                }
                List<String> ids = List.of(idByIndex);
                BatchProgress progress = unchecked(() -> findBatch(handle, batchId)).orElseThrow();
                return new BatchCreation(progress, ids, refs, true);
            });
        } catch (SQLException e) {
            throw asValidation(new org.jdbi.v3.core.statement.UnableToExecuteStatementException(e, null));
        } catch (RuntimeException e) {
            throw asValidation(e);
        }
    }

    private static boolean insertBatch(Connection c, String name, String storedKey, String tenant, String batchId,
                                       String requestHash, Job onComplete, String[] jobIds, Map<String, String> refs,
                                       Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT_BATCH_SQL)) {
            INSERT_BATCH.bind(ps).text("id", batchId).text("name", name).text("tenant", tenant)
                    .text("idempotencyKey", storedKey).text("requestHash", requestHash)
                    .integer("total", jobIds.length).textArray("jobIds", jobIds)
                    .text("refs", PayloadJson.write(new java.util.TreeMap<>(refs)))
                    .text("onComplete", onComplete == null ? null : onComplete.id())
                    .timestamp("now", now).done();
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private record Holder(String id, List<String> jobIds, Map<String, String> refs) {
    }

    @SuppressWarnings("unchecked")
    private static Holder batchByKey(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(BATCH_BY_KEY_SQL)) {
            BATCH_BY_KEY.bind(ps).text("idempotencyKey", key).done();
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("batch key " + key + " conflicted with a batch that is gone");
                }
                List<String> ids = List.of((String[]) rs.getArray("job_ids").getArray());
                Map<String, String> refs = new LinkedHashMap<>();
                PayloadJson.read(rs.getString("refs")).forEach((k, v) -> refs.put(k, String.valueOf(v)));
                return new Holder(rs.getString("id"), ids, refs);
            }
        }
    }

    private static void insertJobs(Connection c, List<Job> jobs, List<Run> runs, List<ParentFailure> policies,
                                   boolean[] hasChildren, String batchId, String tenant, Instant now)
            throws SQLException {
        int n = jobs.size();
        String[] ids = new String[n], names = new String[n], executors = new String[n], payloads = new String[n],
                runAts = new String[n], timezones = new String[n], catchUps = new String[n],
                nextRunAts = new String[n], queues = new String[n], concurrencyKeys = new String[n],
                traceparents = new String[n], tracestates = new String[n], labels = new String[n],
                policyNames = new String[n], runIds = new String[n], runStatuses = new String[n],
                children = new String[n], notifies = new String[n], throttles = new String[n];
        Integer[] priorities = new Integer[n], maxAttempts = new Integer[n], timeouts = new Integer[n],
                maxConcurrents = new Integer[n], retryBases = new Integer[n], retryMaxes = new Integer[n];
        for (int i = 0; i < n; i++) {
            Job job = jobs.get(i);
            JobSpec spec = job.spec();
            Run run = runs.get(i);
            ids[i] = job.id();
            names[i] = spec.name();
            executors[i] = spec.executor();
            payloads[i] = PayloadJson.write(spec.payload());
            runAts[i] = text(spec.runAt());
            timezones[i] = spec.timezone();
            priorities[i] = spec.priority();
            maxAttempts[i] = spec.maxAttempts();
            timeouts[i] = spec.timeoutSeconds();
            catchUps[i] = spec.catchUp().wireName();
            nextRunAts[i] = text(run.scheduledFor());
            queues[i] = spec.queue();
            concurrencyKeys[i] = spec.concurrencyKey();
            maxConcurrents[i] = spec.maxConcurrent();
            traceparents[i] = job.trace() == null ? null : job.trace().traceparent();
            tracestates[i] = job.trace() == null ? null : job.trace().tracestate();
            retryBases[i] = JobSql.retryBase(spec);
            retryMaxes[i] = JobSql.retryMax(spec);
            labels[i] = PayloadJson.write(spec.labels());
            policyNames[i] = policies.get(i) == null ? null : policies.get(i).wireName();
            runIds[i] = run.id();
            runStatuses[i] = run.status().wireName();
            children[i] = Boolean.toString(hasChildren[i]);
            notifies[i] = JobSql.notifyJson(spec);
            throttles[i] = JobSql.throttleJson(spec);
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_JOBS_SQL)) {
            INSERT_JOBS.bind(ps).textArray("ids", ids).textArray("names", names).textArray("executors", executors)
                    .textArray("payloads", payloads).textArray("runAts", runAts).textArray("timezones", timezones)
                    .integerArray("priorities", priorities).integerArray("maxAttempts", maxAttempts)
                    .integerArray("timeoutSeconds", timeouts).textArray("catchUps", catchUps)
                    .textArray("nextRunAts", nextRunAts).textArray("queues", queues)
                    .textArray("concurrencyKeys", concurrencyKeys).integerArray("maxConcurrents", maxConcurrents)
                    .textArray("traceparents", traceparents).textArray("tracestates", tracestates)
                    .integerArray("retryBases", retryBases).integerArray("retryMaxes", retryMaxes)
                    .textArray("labels", labels).textArray("policies", policyNames).textArray("runIds", runIds)
                    .textArray("runStatuses", runStatuses).textArray("hasChildren", children)
                    .textArray("notifies", notifies).textArray("throttles", throttles)
                    .text("batchId", batchId).text("tenant", tenant).timestamp("now", now).done();
            ps.executeUpdate();
        }
    }

    private static void insertEdges(Connection c, BatchPlan plan, String[] idByIndex) throws SQLException {
        List<String> children = new ArrayList<>();
        List<String> parents = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (BatchPlan.Planned p : plan.jobs()) {
            int position = 1;
            for (int parent : p.batchParents()) {
                children.add(idByIndex[p.index()]);
                parents.add(idByIndex[parent]);
                positions.add(position++);
            }
        }
        if (children.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_EDGES_SQL)) {
            INSERT_EDGES.bind(ps).textArray("children", children.toArray(new String[0]))
                    .textArray("parents", parents.toArray(new String[0]))
                    .integerArray("positions", positions.toArray(new Integer[0])).done();
            ps.executeUpdate();
        }
    }

    @Override
    public Optional<BatchProgress> findBatch(String id) {
        if (!Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        return jdbi.withHandle(handle -> unchecked(() -> findBatch(handle, id)));
    }

    private static Optional<BatchProgress> findBatch(Handle handle, String id) throws SQLException {
        Connection c = handle.getConnection();
        try (PreparedStatement ps = c.prepareStatement(BATCH_SQL)) {
            BATCH.bind(ps).text("id", id).done();
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Instant completed = instant(rs, "completed_at");
                // a completed batch shows the counts it completed with; later requeues show in its jobs
                boolean done = completed != null;
                return Optional.of(new BatchProgress(rs.getString("id"), rs.getString("name"),
                        Tenants.unscopedKey(rs.getString("idempotency_key")), rs.getString("request_hash"),
                        instant(rs, "created_at"),
                        completed, rs.getInt("total"), rs.getInt("waiting"), rs.getInt("pending"),
                        rs.getInt("running"), done ? rs.getInt("final_succeeded") : rs.getInt("succeeded"),
                        done ? rs.getInt("final_dead") : rs.getInt("dead"),
                        done ? rs.getInt("final_cancelled") : rs.getInt("cancelled"),
                        rs.getString("on_complete_job_id"), rs.getString("tenant")));
            }
        }
    }

    @Override
    public Optional<JobLinks> links(String jobId, int childLimit) {
        if (!Ids.isWellFormed(jobId)) {
            return Optional.empty();
        }
        return jdbi.withHandle(handle -> {
            Map<String, JobLinks> own = unchecked(() -> workflowOf(handle, List.of(jobId)));
            boolean exists = handle.createQuery("SELECT 1 FROM jobs WHERE id = CAST(:id AS uuid)").bind("id", jobId)
                    .mapTo(Integer.class).findOne().isPresent();
            if (!exists) {
                return Optional.<JobLinks>empty();
            }
            JobLinks base = own.getOrDefault(jobId.toLowerCase(Locale.ROOT),
                    new JobLinks(Dependencies.NONE, null, List.of(), List.of()));
            List<LinkedJob> parents = unchecked(() -> linked(handle, PARENTS, jobId, null));
            List<LinkedJob> children = unchecked(() -> linked(handle, CHILDREN, jobId, childLimit));
            return Optional.of(new JobLinks(base.dependencies(), base.batchId(), parents, children));
        });
    }

    private static List<LinkedJob> linked(Handle handle, SqlFile file, String id, Integer limit) throws SQLException {
        Connection c = handle.getConnection();
        try (PreparedStatement ps = file == PARENTS ? c.prepareStatement(PARENTS_SQL) : c.prepareStatement(CHILDREN_SQL)) {
            SqlFile.Binder binder = file.bind(ps).text("id", id);
            if (limit != null) {
                binder.integer("limit", limit);
            }
            binder.done();
            List<LinkedJob> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new LinkedJob(rs.getString("id"), rs.getString("name"), rs.getString("status"),
                            rs.getString("run_status")));
                }
            }
            return out;
        }
    }

    @Override
    public Map<String, JobLinks> workflowOf(List<String> jobIds) {
        List<String> ids = jobIds.stream().filter(Ids::isWellFormed).toList();
        if (ids.isEmpty()) {
            return Map.of();
        }
        return jdbi.withHandle(handle -> unchecked(() -> workflowOf(handle, ids)));
    }

    private static Map<String, JobLinks> workflowOf(Handle handle, List<String> ids) throws SQLException {
        Map<String, JobLinks> out = new HashMap<>();
        try (PreparedStatement ps = handle.getConnection().prepareStatement(WORKFLOW_OF_SQL)) {
            WORKFLOW_OF.bind(ps).textArray("ids", ids.toArray(new String[0])).done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Array array = rs.getArray("parents");
                    List<String> parents = array == null ? List.of() : List.of((String[]) array.getArray());
                    String policy = rs.getString("on_parent_failure");
                    Dependencies deps = parents.isEmpty() ? Dependencies.NONE
                            : new Dependencies(parents, policy == null ? ParentFailure.CANCEL
                            : ParentFailure.fromWire(policy));
                    out.put(rs.getString("id"), new JobLinks(deps, rs.getString("batch_id"), List.of(), List.of()));
                }
            }
        }
        return out;
    }

    @Override
    public List<String> completeBatches(int limit) {
        return jdbi.inTransaction(handle -> handle.createQuery("SELECT forgeflow_complete_batches(:limit)::text")
                .bind("limit", limit).mapTo(String.class).list());
    }

    @Override
    public int recheckChildren(int limit) {
        return jdbi.inTransaction(handle -> handle.createQuery("SELECT forgeflow_recheck_children(:limit)")
                .bind("limit", limit).mapTo(Integer.class).one());
    }

    /** A workflow function's refusal (SQLSTATE 22023 with a column) as the 422 it is; anything else as it was. */
    static RuntimeException asValidation(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof PSQLException p && INVALID_PARAMETER.equals(p.getSQLState())) {
                ServerErrorMessage m = p.getServerErrorMessage();
                if (m != null && m.getColumn() != null) {
                    return new ValidationException(m.getColumn(), m.getMessage());
                }
            }
        }
        return e;
    }

    private interface SqlWork<T> {
        T run() throws SQLException;
    }

    private static <T> T unchecked(SqlWork<T> work) {
        try {
            return work.run();
        } catch (SQLException e) {
            throw new org.jdbi.v3.core.statement.UnableToExecuteStatementException(e, null);
        }
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        java.time.OffsetDateTime t = rs.getObject(column, java.time.OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
