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
}
