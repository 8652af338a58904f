package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionContext;

import java.time.Duration;
import java.util.Map;

/** Builds the context of one attempt: {@code anAttempt().withPayload(Map.of("command", "true")).build()}. */
final class AnAttempt {
    private String runId = "run-1";
    private String jobId = "job-1";
    private int attempt = 1;
    private Map<String, Object> payload = Map.of();
    private Duration timeout = Duration.ofSeconds(20);
    private Cancellation cancellation = new Cancellation();
    private int maxOutputBytes = ExecutionContext.DEFAULT_MAX_OUTPUT_BYTES;

    static AnAttempt anAttempt() {
        return new AnAttempt();
    }

    AnAttempt withIds(String run, String job, int attemptNumber) {
        this.runId = run;
        this.jobId = job;
        this.attempt = attemptNumber;
        return this;
    }

    AnAttempt withPayload(Map<String, Object> value) {
        this.payload = value;
        return this;
    }

    AnAttempt withTimeout(Duration value) {
        this.timeout = value;
        return this;
    }

    AnAttempt withCancellation(Cancellation value) {
        this.cancellation = value;
        return this;
    }

    AnAttempt withMaxOutputBytes(int value) {
        this.maxOutputBytes = value;
        return this;
    }

    ExecutionContext build() {
        return new ExecutionContext(runId, jobId, attempt, payload, timeout, cancellation, maxOutputBytes);
    }
}
