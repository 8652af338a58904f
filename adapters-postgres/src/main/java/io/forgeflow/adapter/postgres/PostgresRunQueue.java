package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.Rows.AppliedFence;
import io.forgeflow.adapter.postgres.Rows.FenceRow;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ClaimHint;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.jdbi.v3.core.Jdbi;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The claim engine on PostgreSQL ({@link RunQueue}).
 *
 * <ul>
 *   <li>{@link #claim}: one round trip (the {@code forgeflow_claim} function); {@code FOR UPDATE SKIP LOCKED} over
 *       the pending queue index, limits counted under their locks, and the pending → running update (the attempt
 *       row is written when the attempt ends). A claim given a {@link ClaimHint} starts past it: the caller (the
 *       worker's claimer) owns its hints, on its own clock; this class keeps no state between claims.</li>
 *   <li>{@link #acknowledge}, {@link #release}, {@link #recover}: one call per batch into
 *       {@code forgeflow_end_attempts}, every row fenced by {@code (id, status = 'running', holder, attempt)}, the
 *       holder being the worker process's own identity ({@link io.forgeflow.domain.port.WorkerHolder}), not its label
 *       (and a recovery by the run's and its holder's leases being expired and the holder ended); a stale fence
 *       changes nothing. Nothing is decided here: the
 *       acknowledgements and recovery decisions come from the application.</li>
 *   <li>{@link #heartbeat}: one call for the leases a worker holds: its holder's lease row, then its runs' leases
 *       with SKIP LOCKED; it waits on no run lock an application or an operator may hold.</li>
 *   <li>{@link #expiredLeases}: a plain read of the expired leases, for the leader's rescuer to decide on.</li>
 * </ul>
 *
 * Multi-row writers lock runs in id order, and lock runs before jobs, so they cannot deadlock each other. All times are
 * the database's {@code now()} unless a test clock is given.
 *
 * <p>It publishes no run events: the worker and the rescuer publish what these calls return, after they return.
 */
public final class PostgresRunQueue implements RunQueue {
    /** The order runs are claimed in: priority (1 first), then due time, then id (time-ordered UUIDv7). */
    private static final Comparator<Run> CLAIM_ORDER = Comparator.comparingInt(Run::priority)
            .thenComparing(Run::scheduledFor).thenComparing(Run::id);

    // The worker's statements run on plain JDBC (JdbcStatements); their text stays in RunSql/*.sql.
    private static final SqlFile CLAIM = SqlFile.load("RunSql/claim.sql");
    private static final String CLAIM_SQL = CLAIM.jdbc();
    private static final SqlFile END_ATTEMPTS = SqlFile.load("RunSql/endAttempts.sql");
    private static final String END_ATTEMPTS_SQL = END_ATTEMPTS.jdbc();
    private static final SqlFile EXPIRED_LEASES = SqlFile.load("RunSql/expiredLeases.sql");
    private static final String EXPIRED_LEASES_SQL = EXPIRED_LEASES.jdbc();
    private static final SqlFile RECORD_RETRY_AFTER = SqlFile.load("RunSql/recordRetryAfter.sql");
    private static final String RECORD_RETRY_AFTER_SQL = RECORD_RETRY_AFTER.jdbc();
    private static final SqlFile HEARTBEAT = SqlFile.load("RunSql/heartbeat.sql");
    private static final String HEARTBEAT_SQL = HEARTBEAT.jdbc();
    private static final SqlFile HEARTBEAT_HELD = SqlFile.load("RunSql/heartbeatHeld.sql");
    private static final String HEARTBEAT_HELD_SQL = HEARTBEAT_HELD.jdbc();
    private static final SqlFile CANCELLATIONS = SqlFile.load("RunSql/cancellationsFor.sql");
    private static final String CANCELLATIONS_SQL = CANCELLATIONS.jdbc();
    private static final SqlFile NEXT_DUE = SqlFile.load("RunSql/nextDue.sql");
    private static final String NEXT_DUE_SQL = NEXT_DUE.jdbc();

    private final JdbcStatements statements;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresRunQueue(Jdbi jdbi, Clock testClock) {
        this.statements = JdbcStatements.of(jdbi);
        this.clock = new DbClock(testClock);
    }

    @Override
    public List<Run> claim(String workerId, Set<String> executors, QueueSelection queues, int limit, Duration lease) {
        return claim(workerId, executors, queues, limit, lease, null);
    }

    /** {@inheritDoc} ({@code db/changelog/0007-claim-past-a-hint.sql}: the hint's priority is read from past it.) */
    @Override
    public List<Run> claim(String workerId, Set<String> executors, QueueSelection queues, int limit, Duration lease,
                           ClaimHint after) {
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(queues, "queues");
        if (limit < 1 || executors.isEmpty()) {
            return List.of();
        }
        long leaseMillis = positiveMillis(lease, "lease");
        String[] names = executors.toArray(String[]::new);
        String[] include = queues.include() == null ? null : queues.include().toArray(String[]::new);
        String[] exclude = queues.exclude().toArray(String[]::new);
        Instant now = clock.now();
        List<Run> claimed = statements.list(CLAIM, c -> c.prepareStatement(CLAIM_SQL), ps -> CLAIM.bind(ps)
                .text("worker", workerId).textArray("executors", names).textArray("include", include)
                .textArray("exclude", exclude).integer("limit", limit).bigint("leaseMillis", leaseMillis)
                .timestamp("now", now).integer("afterPriority", after == null ? null : after.priority())
                .timestamp("afterScheduled", after == null ? null : after.scheduledFor())
                .text("afterId", after == null ? null : after.runId()).done(), Rows::run);
        claimed.sort(CLAIM_ORDER);
        return claimed;
    }

    /** {@inheritDoc} One index probe per priority (see {@code RunSql/nextDue.sql}). */
    @Override
    public Optional<Duration> nextDueIn(Set<String> executors, QueueSelection queues) {
        Objects.requireNonNull(queues, "queues");
        if (executors.isEmpty()) {
            return Optional.empty();
        }
        String[] names = executors.toArray(String[]::new);
        String[] include = queues.include() == null ? null : queues.include().toArray(String[]::new);
        String[] exclude = queues.exclude().toArray(String[]::new);
        Instant now = clock.now();
        List<Double> millis = statements.list(NEXT_DUE, c -> c.prepareStatement(NEXT_DUE_SQL), ps -> NEXT_DUE.bind(ps)
                .textArray("executors", names).textArray("include", include).textArray("exclude", exclude)
                .timestamp("now", now).done(), row -> {
                    double value = row.getDouble("millis");
                    return row.wasNull() ? null : value;
                });
        return millis.isEmpty() || millis.get(0) == null ? Optional.empty()
                : Optional.of(Duration.ofNanos((long) (millis.get(0) * 1e6)));
    }

    @Override
    public Set<RunFence> acknowledge(Collection<Acknowledgement> acks) {
        Map<RunFence, Acknowledgement> byFence = byFence(acks);
        if (byFence.isEmpty()) {
            return Set.of();
        }
        JdbcStatements.Binding binding = bindEndAttempts(byFence.values());
        List<Acknowledgement> withRetryAfter = new ArrayList<>();
        for (Acknowledgement ack : byFence.values()) {
            if (ack.retryAfter() != null) {
                withRetryAfter.add(ack);
            }
        }
        List<AppliedFence> applied = withRetryAfter.isEmpty()
                ? statements.list(END_ATTEMPTS, c -> c.prepareStatement(END_ATTEMPTS_SQL), binding, Rows::appliedFence)
                : acknowledgeRecordingRetryAfter(binding, withRetryAfter);
        return applied(byFence, applied);
    }

    /** The acknowledgements (or decisions) by their fence as the database returns it; malformed ids are left out. */
    private static Map<RunFence, Acknowledgement> byFence(Collection<Acknowledgement> acks) {
        Map<RunFence, Acknowledgement> byFence = new LinkedHashMap<>();
        for (Acknowledgement ack : acks) {
            if (Ids.isWellFormed(ack.fence().runId())) {
                byFence.putIfAbsent(normalized(ack.fence()), ack);
            }
        }
        return byFence;
    }

    /** Binds a batch of ended attempts for {@code RunSql/endAttempts.sql}. */
    private JdbcStatements.Binding bindEndAttempts(Collection<Acknowledgement> acks) {
        int n = acks.size();
        String[] ids = new String[n];
        String[] workers = new String[n];
        Integer[] attempts = new Integer[n];
        String[] next = new String[n];
        Long[] delays = new Long[n];
        String[] outcomes = new String[n];
        String[] outputs = new String[n];
        String[] errors = new String[n];
        int i = 0;
        for (Acknowledgement ack : acks) {
            ids[i] = ack.fence().runId();
            workers[i] = ack.fence().workerId();
            attempts[i] = ack.fence().attempt();
            next[i] = ack.next().wireName();
            delays[i] = ack.next() == RunStatus.PENDING ? Math.max(0, ack.retryDelay().toMillis()) : 0L;
            outcomes[i] = ack.outcome().wireName();
            outputs[i] = storable(ack.output());
            errors[i] = storable(ack.error());
            i++;
        }
        Instant now = clock.now();
        return ps -> END_ATTEMPTS.bind(ps).textArray("ids", ids).textArray("workers", workers)
                .integerArray("attempts", attempts).textArray("nextStatuses", next)
                .bigintArray("delaysMillis", delays).textArray("outcomes", outcomes)
                .textArray("outputs", outputs).textArray("errors", errors).timestamp("now", now).done();
    }

    /** The caller's fences that applied. */
    private static Set<RunFence> applied(Map<RunFence, Acknowledgement> byFence, List<AppliedFence> applied) {
        Set<RunFence> result = new HashSet<>();
        for (AppliedFence row : applied) {
            result.add(byFence.get(row.fence()).fence());
        }
        return result;
    }

    /** The rare batch with a Retry-After: the acknowledgement and the attempts' retry-after in one transaction. */
    private List<AppliedFence> acknowledgeRecordingRetryAfter(JdbcStatements.Binding binding,
                                                              List<Acknowledgement> withRetryAfter) {
        String[] ids = new String[withRetryAfter.size()];
        Integer[] attempts = new Integer[ids.length];
        Integer[] seconds = new Integer[ids.length];
        for (int i = 0; i < ids.length; i++) {
            Acknowledgement ack = withRetryAfter.get(i);
            ids[i] = ack.fence().runId();
            attempts[i] = ack.fence().attempt();
            seconds[i] = (int) Math.min(Integer.MAX_VALUE, ack.retryAfter().toSeconds());
        }
        return statements.inTransaction(END_ATTEMPTS, connection -> {
            List<AppliedFence> rows = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(END_ATTEMPTS_SQL)) {
                binding.bind(ps);
                try (ResultSet result = ps.executeQuery()) {
                    while (result.next()) {
                        rows.add(Rows.appliedFence(result));
                    }
                }
            }
            try (PreparedStatement ps = connection.prepareStatement(RECORD_RETRY_AFTER_SQL)) {
                RECORD_RETRY_AFTER.bind(ps).textArray("ids", ids).integerArray("attempts", attempts)
                        .integerArray("seconds", seconds).done().executeUpdate();
            }
            return rows;
        });
    }

    @Override
    public Heartbeat heartbeat(String workerId, Duration lease) {
        Objects.requireNonNull(workerId, "workerId");
        long leaseMillis = positiveMillis(lease, "lease");
        Instant now = clock.now();
        List<FenceRow> rows = statements.list(HEARTBEAT, c -> c.prepareStatement(HEARTBEAT_SQL),
                ps -> HEARTBEAT.bind(ps).text("worker", workerId).bigint("leaseMillis", leaseMillis)
                        .timestamp("now", now).done(), Rows::fenceRow);
        Set<RunFence> extended = new HashSet<>();
        Set<String> cancel = new HashSet<>();
        for (FenceRow row : rows) {
            extended.add(row.fence());
            if (row.cancelRequested()) {
                cancel.add(row.fence().runId());
            }
        }
        return new Heartbeat(extended, cancel);
    }

    @Override
    public Heartbeat heartbeat(String workerId, Collection<RunFence> held, Duration lease) {
        Objects.requireNonNull(workerId, "workerId");
        long leaseMillis = positiveMillis(lease, "lease");
        List<String> ids = new ArrayList<>();
        List<Integer> attempts = new ArrayList<>();
        for (RunFence fence : held) {
            if (fence.workerId().equals(workerId) && Ids.isWellFormed(fence.runId())) {
                ids.add(fence.runId());
                attempts.add(fence.attempt());
            }
        }
        Instant now = clock.now();
        Set<RunFence> extended = new HashSet<>();
        Set<String> cancel = new HashSet<>();
        Set<RunFence> unheld = new HashSet<>();
        boolean[] alive = {true};
        statements.list(HEARTBEAT_HELD, c -> c.prepareStatement(HEARTBEAT_HELD_SQL),
                ps -> HEARTBEAT_HELD.bind(ps).text("worker", workerId).bigint("leaseMillis", leaseMillis)
                        .textArray("ids", ids.toArray(new String[0]))
                        .integerArray("attempts", attempts.toArray(new Integer[0])).timestamp("now", now).done(),
                row -> {
                    if (!row.getBoolean("alive")) {
                        alive[0] = false;
                        return null;
                    }
                    FenceRow fence = Rows.fenceRow(row);
                    if (!row.getBoolean("held")) {
                        unheld.add(fence.fence());
                    } else {
                        extended.add(fence.fence());
                        if (fence.cancelRequested()) {
                            cancel.add(fence.fence().runId());
                        }
                    }
                    return fence;
                });
        if (!alive[0]) {
            return Heartbeat.ended();
        }
        return new Heartbeat(extended, cancel, unheld);
    }

    @Override
    public Set<String> cancellationsFor(String workerId) {
        Objects.requireNonNull(workerId, "workerId");
        return Set.copyOf(statements.list(CANCELLATIONS, c -> c.prepareStatement(CANCELLATIONS_SQL),
                ps -> CANCELLATIONS.bind(ps).text("worker", workerId).done(), row -> row.getString("id")));
    }

    /** {@inheritDoc} Each attempt ends {@code released}, through the same function as an acknowledgement. */
    @Override
    public Set<RunFence> release(Collection<RunFence> fences) {
        List<Acknowledgement> releases = new ArrayList<>();
        for (RunFence fence : fences) {
            releases.add(new Acknowledgement(fence, AttemptOutcome.RELEASED, RunStatus.PENDING, Duration.ZERO, null,
                    "released by worker " + fence.workerId() + " before it started or finished (not counted)"));
        }
        return endAttempts(releases);
    }

    @Override
    public List<ExpiredLease> expiredLeases(int limit) {
        if (limit < 1) {
            return List.of();
        }
        Instant now = clock.now();
        return statements.list(EXPIRED_LEASES, c -> c.prepareStatement(EXPIRED_LEASES_SQL),
                ps -> EXPIRED_LEASES.bind(ps).integer("limit", limit).timestamp("now", now).done(), Rows::expiredLease);
    }

    /** {@inheritDoc} The same function as an acknowledgement ends the attempts, {@code lease_expired}. */
    @Override
    public Set<RunFence> recover(Collection<Acknowledgement> decisions) {
        for (Acknowledgement decision : decisions) {
            if (decision.outcome() != AttemptOutcome.LEASE_EXPIRED) {
                throw new IllegalArgumentException("a recovery ends an attempt as lease_expired, not "
                        + decision.outcome().wireName());
            }
        }
        return endAttempts(decisions);
    }

    private Set<RunFence> endAttempts(Collection<Acknowledgement> acks) {
        Map<RunFence, Acknowledgement> byFence = byFence(acks);
        if (byFence.isEmpty()) {
            return Set.of();
        }
        return applied(byFence, statements.list(END_ATTEMPTS, c -> c.prepareStatement(END_ATTEMPTS_SQL),
                bindEndAttempts(byFence.values()), Rows::appliedFence));
    }

    /** The fence as the database returns it (ids in lower case), to match returned rows to the caller's fences. */
    private static RunFence normalized(RunFence fence) {
        return new RunFence(fence.runId().toLowerCase(Locale.ROOT), fence.workerId(), fence.attempt());
    }

    static long positiveMillis(Duration duration, String name) {
        Objects.requireNonNull(duration, name);
        long millis = duration.toMillis();
        if (millis < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms, was " + duration);
        }
        return millis;
    }

    /**
     * PostgreSQL text cannot hold NUL characters, and a shell command's output may contain them (binary output):
     * they are stored as U+FFFD so that the result is kept instead of refused.
     */
    static String storable(String text) {
        return text == null || text.indexOf('\0') < 0 ? text : text.replace('\0', '\uFFFD');
    }
}
