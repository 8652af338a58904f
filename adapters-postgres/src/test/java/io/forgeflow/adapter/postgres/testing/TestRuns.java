package io.forgeflow.adapter.postgres.testing;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * Test runs with named starting points: {@code aRun()} is a pending run of executor {@code noop}, due long ago;
 * {@code aRun().dueAt(t)}, {@code aRun().running().leasedBy("w1").leaseUntil(t).attempt(1)}, {@code aRun().dead()}.
 * Without {@link #ofJob}, {@link PostgresExtension#insert(TestRuns)} first inserts a one-off job for the run.
 */
public final class TestRuns {
    /** The default due time of a seeded run: long past on any clock a test uses. */
    public static final Instant LONG_AGO = Instant.parse("2000-01-01T00:00:00Z");

    private String id;
    private String jobId;
    private RunStatus status = RunStatus.PENDING;
    private int attempt;
    private int maxAttempts = 3;
    private int priority = 5;
    private Instant scheduledFor = LONG_AGO;
    private Instant startedAt;
    private Instant finishedAt;
    private String workerId;
    private Instant leaseExpiresAt;
    private String output;
    private String error;
    private String executor = "noop";
    private Map<String, Object> payload = Map.of();
    private int timeoutSeconds = 300;
    private boolean cancelRequested;
    private Instant createdAt;

    private TestRuns() {
    }

    /** A pending run of executor {@code noop}, priority 5, attempt 0 of 3, due {@link #LONG_AGO}. */
    public static TestRuns aRun() {
        return new TestRuns();
    }

    public TestRuns withId(String value) {
        this.id = value;
        return this;
    }

    public TestRuns ofJob(String value) {
        this.jobId = value;
        return this;
    }

    public TestRuns dueAt(Instant value) {
        this.scheduledFor = value;
        return this;
    }

    public TestRuns withPriority(int value) {
        this.priority = value;
        return this;
    }

    public TestRuns withExecutor(String value) {
        this.executor = value;
        return this;
    }

    public TestRuns withPayload(Map<String, Object> value) {
        this.payload = value;
        return this;
    }

    public TestRuns withMaxAttempts(int value) {
        this.maxAttempts = value;
        return this;
    }

    /** Attempts started so far. */
    public TestRuns attempt(int value) {
        this.attempt = value;
        return this;
    }

    public TestRuns withTimeoutSeconds(int value) {
        this.timeoutSeconds = value;
        return this;
    }

    public TestRuns withStatus(RunStatus value) {
        this.status = value;
        return this;
    }

    /** Running: also give {@link #leasedBy} and {@link #leaseUntil}; the attempt becomes at least 1. */
    public TestRuns running() {
        this.status = RunStatus.RUNNING;
        this.attempt = Math.max(1, attempt);
        return this;
    }

    public TestRuns leasedBy(String worker) {
        this.workerId = worker;
        return this;
    }

    public TestRuns leaseUntil(Instant value) {
        this.leaseExpiresAt = value;
        return this;
    }

    public TestRuns startedAt(Instant value) {
        this.startedAt = value;
        return this;
    }

    public TestRuns cancelRequested() {
        this.cancelRequested = true;
        return this;
    }

    public TestRuns dead() {
        return finished(RunStatus.DEAD);
    }

    public TestRuns cancelled() {
        return finished(RunStatus.CANCELLED);
    }

    public TestRuns succeeded() {
        return finished(RunStatus.SUCCEEDED);
    }

    public TestRuns withOutput(String value) {
        this.output = value;
        return this;
    }

    public TestRuns withError(String value) {
        this.error = value;
        return this;
    }

    /** Also decides the id's time component (ids are UUIDv7), unless an id was given. */
    public TestRuns createdAt(Instant value) {
        this.createdAt = value;
        return this;
    }

    String jobId() {
        return jobId;
    }

    String executor() {
        return executor;
    }

    int priority() {
        return priority;
    }

    private TestRuns finished(RunStatus value) {
        this.status = value;
        this.attempt = Math.max(attempt, maxAttempts);
        this.finishedAt = scheduledFor;
        return this;
    }

    /** The run; its job id must have been given ({@link #ofJob}). */
    public Run build() {
        if (jobId == null) {
            throw new IllegalStateException("give the run a job with ofJob(id), or insert it with pg.insert(...), "
                    + "which creates one");
        }
        // PostgreSQL keeps microseconds
        Instant created = (createdAt == null ? Instant.now() : createdAt).truncatedTo(ChronoUnit.MICROS);
        Instant started = startedAt == null && status == RunStatus.RUNNING ? scheduledFor : startedAt;
        return new Run(id == null ? Ids.newId(created) : id, jobId, status, attempt, maxAttempts, priority,
                scheduledFor, started, finishedAt, workerId, leaseExpiresAt, output, error, executor, payload,
                timeoutSeconds, cancelRequested, created);
    }
}
