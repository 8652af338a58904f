package io.forgeflow.admin.testing;

import io.forgeflow.client.Attempt;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Jobs and runs with named starting points, for view-model tests. */
public final class Fixtures {
    public static final Instant T0 = Instant.parse("2026-07-01T09:30:00Z");

    private Fixtures() {
    }

    public static Job job(String id, String name, String status) {
        return new Job(id, name, "shell", Map.of("command", "echo " + name), "0 3 * * *", null, "Europe/Berlin", 5, 3,
                300, "skip", null, status, Instant.parse("2026-07-02T01:00:00Z"), T0, T0);
    }

    public static Job withStatus(Job j, String status) {
        return new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(), j.priority(),
                j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), status, j.nextRunAt(),
                j.createdAt(), T0.plusSeconds(60));
    }

    /** A job with every field that PATCH may change set to something other than its default. */
    public static Job fullJob(String id, String name) {
        return new Job(id, name, "shell", Map.of("command", "echo " + name, "permanent_exit_codes", List.of(2)),
                "0 3 * * *", null, "Europe/Berlin", 5, 3, 300, "skip", "deploy-42", Job.ACTIVE,
                Instant.parse("2026-07-02T01:00:00Z"), T0, T0, "reports", "db", 2, "skip", null, null,
                Map.of("team", "ops", "env", "prod"));
    }

    /** The job with the PATCH body's fields applied (the server's checks left out). */
    @SuppressWarnings("unchecked")
    public static Job patched(Job j, Map<String, Object> body) {
        Map<String, Object> f = new java.util.HashMap<>(body);
        return new Job(j.id(), (String) f.getOrDefault("name", j.name()), j.executor(),
                (Map<String, Object>) f.getOrDefault("payload", j.payload()),
                (String) f.getOrDefault("cron_expr", j.cronExpr()),
                f.containsKey("run_at") ? (f.get("run_at") == null ? null : Instant.parse((String) f.get("run_at")))
                        : j.runAt(),
                (String) f.getOrDefault("timezone", j.timezone()), (Integer) f.getOrDefault("priority", j.priority()),
                (Integer) f.getOrDefault("max_attempts", j.maxAttempts()),
                (Integer) f.getOrDefault("timeout_seconds", j.timeoutSeconds()),
                (String) f.getOrDefault("catch_up", j.catchUp()), j.idempotencyKey(), j.status(), j.nextRunAt(),
                j.createdAt(), T0.plusSeconds(120), (String) f.getOrDefault("queue", j.queue()),
                (String) f.getOrDefault("concurrency_key", j.concurrencyKey()),
                (Integer) f.getOrDefault("max_concurrent", j.maxConcurrent()),
                (String) f.getOrDefault("overlap", j.overlap()), j.waitingFor(), j.retry(),
                (Map<String, String>) f.getOrDefault("labels", j.labels()), j.traceId(), j.dependsOn(),
                j.onParentFailure(), j.batchId(), j.parents(), j.children(),
                f.containsKey("start_at") ? instant(f.get("start_at")) : j.startAt(),
                f.containsKey("end_at") ? instant(f.get("end_at")) : j.endAt(),
                f.containsKey("max_runs") ? (Integer) f.get("max_runs") : j.maxRuns(),
                f.containsKey("jitter_seconds") ? (f.get("jitter_seconds") == null ? 0 : (Integer) f.get("jitter_seconds"))
                        : j.jitterSeconds(),
                f.containsKey("pause_after_failures") ? (Integer) f.get("pause_after_failures")
                        : j.pauseAfterFailures(), j.firedRuns(), j.pausedNote(), j.pausedBy(), j.sequenceKey(),
                j.onDead(), f.containsKey("notify") ? notify(f.get("notify")) : j.notices(), j.deadStreak());
    }

    /** A PATCH body's notify as the server stores it: null removes it; no "on": all three events. */
    @SuppressWarnings("unchecked")
    private static io.forgeflow.client.Notify notify(Object body) {
        if (body == null) {
            return null;
        }
        Map<String, Object> n = (Map<String, Object>) body;
        List<String> on = (List<String>) n.get("on");
        return new io.forgeflow.client.Notify((String) n.get("url"), on == null || on.isEmpty()
                ? List.of("dead", "paused", "recovered") : on);
    }

    /** {@link #fullJob} whose notices go to {@code url} on {@code on}. */
    public static Job noticedJob(String id, String name, String url, String... on) {
        return patched(fullJob(id, name), Map.of("notify", Map.of("url", url, "on", List.of(on))));
    }

    private static Instant instant(Object text) {
        return text == null ? null : Instant.parse((String) text);
    }

    /**
     * {@link #fullJob} with every schedule control set: start 2026-07-01, end 2026-12-31, 100 runs, 30 s jitter, pause
     * after 3 dead runs.
     */
    public static Job steeredJob(String id, String name) {
        Job j = fullJob(id, name);
        return new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(), j.priority(),
                j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), j.status(), j.nextRunAt(),
                j.createdAt(), j.updatedAt(), j.queue(), j.concurrencyKey(), j.maxConcurrent(), j.overlap(),
                j.waitingFor(), j.retry(), j.labels(), j.traceId(), j.dependsOn(), j.onParentFailure(), j.batchId(),
                j.parents(), j.children(), Instant.parse("2026-07-01T00:00:00Z"), Instant.parse("2026-12-31T00:00:00Z"),
                100, 30, 3, 0, null, null);
    }

    /** {@link #steeredJob} (pause after 3 dead runs) with {@code streak} of its runs in a row dead so far. */
    public static Job streakJob(String id, String name, int streak) {
        Job j = steeredJob(id, name);
        return new Job(j.id(), j.name(), j.executor(), j.payload(), j.cronExpr(), j.runAt(), j.timezone(), j.priority(),
                j.maxAttempts(), j.timeoutSeconds(), j.catchUp(), j.idempotencyKey(), j.status(), j.nextRunAt(),
                j.createdAt(), j.updatedAt(), j.queue(), j.concurrencyKey(), j.maxConcurrent(), j.overlap(),
                j.waitingFor(), j.retry(), j.labels(), j.traceId(), j.dependsOn(), j.onParentFailure(), j.batchId(),
                j.parents(), j.children(), j.startAt(), j.endAt(), j.maxRuns(), j.jitterSeconds(),
                j.pauseAfterFailures(), j.firedRuns(), j.pausedNote(), j.pausedBy(), j.sequenceKey(), j.onDead(),
                j.notices(), streak);
    }

    public static Run run(String id, String jobId, String status) {
        boolean finished = status.equals(Run.SUCCEEDED) || status.equals(Run.DEAD) || status.equals(Run.CANCELLED);
        return new Run(id, jobId, status, 1, 3, 5, T0, T0.plusSeconds(1), finished ? T0.plusSeconds(5) : null,
                status.equals(Run.RUNNING) ? "w1" : null, null, "output of " + id,
                status.equals(Run.DEAD) ? "exit code 1: disk full" : null, null);
    }

    public static Run withStatus(Run r, String status) {
        return new Run(r.id(), r.jobId(), status, r.attempt(), r.maxAttempts(), r.priority(), r.scheduledFor(),
                r.startedAt(), r.finishedAt(), r.workerId(), r.leaseExpiresAt(), r.output(), r.error(), r.attempts());
    }

    public static Run withAttempts(Run r, List<Attempt> attempts) {
        return new Run(r.id(), r.jobId(), r.status(), attempts.size(), r.maxAttempts(), r.priority(), r.scheduledFor(),
                r.startedAt(), r.finishedAt(), r.workerId(), r.leaseExpiresAt(), r.output(), r.error(), attempts);
    }

    /** The job as a server with tenants sends it, in tenant. */
    public static Job inTenant(Job job, String tenant) {
        return withComponent(job, "tenant", tenant);
    }

    /** The run as a server with tenants sends it, in tenant. */
    public static Run inTenant(Run run, String tenant) {
        return withComponent(run, "tenant", tenant);
    }

    /** A copy of a record with one component replaced (the client's records have dozens of components). */
    @SuppressWarnings("unchecked")
    private static <T extends Record> T withComponent(T record, String name, Object value) {
        try {
            java.lang.reflect.RecordComponent[] parts = record.getClass().getRecordComponents();
            Object[] args = new Object[parts.length];
            Class<?>[] types = new Class<?>[parts.length];
            for (int i = 0; i < parts.length; i++) {
                types[i] = parts[i].getType();
                args[i] = parts[i].getName().equals(name) ? value : parts[i].getAccessor().invoke(record);
            }
            return (T) record.getClass().getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
