package io.forgeflow.embedded;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;

/** What a {@link JobHandler} gets for one attempt of a run. Usable from the handler's thread and from threads it starts. */
public interface JobContext {

    /** The job's {@code args} (payload {@code {"handler": ..., "args": {...}}}); an empty object when it gave none. */
    JsonNode payload();

    /**
     * The job's {@code args} read as {@code type} (Jackson; unknown fields are ignored unless the worker was given an
     * {@code ObjectMapper} that says otherwise).
     *
     * @throws PermanentFailureException when the args cannot be read as {@code type}: no other attempt could
     */
    <T> T payloadAs(Class<T> type);

    /** The handler's name, as the job gave it. */
    String handler();

    String runId();

    String jobId();

    /** This attempt's number: 1 for the first, 2 for the first retry, and so on. */
    int attempt();

    /** The attempt's budget (the job's {@code timeout_seconds}): past it the thread is interrupted, outcome {@code timed_out}. */
    Duration timeout();

    /** Fires when the attempt must stop: an operator cancelled the run, it timed out, or the worker lost its lease or stops. */
    JobCancellation cancellation();

    /**
     * The W3C {@code traceparent} of this attempt: its span's when the worker records spans
     * ({@link ForgeFlowWorker.Builder#tracing}), else the run's own context (the trace the job was submitted in). Null
     * when the run is not traced. A handler that starts spans of its own makes them children of this.
     */
    default String traceparent() {
        return null;
    }

    /** The W3C {@code tracestate} that goes with {@link #traceparent()}; null for none. */
    default String tracestate() {
        return null;
    }

    /** Appends {@code text} to the run's output (the tail is kept, as for shell jobs); {@code \n} is not added. */
    void output(String text);

    /**
     * Throws a {@link PermanentFailureException}: the run goes to {@code dead} now, whatever attempts are left, with
     * {@code reason} as its error. Declared to return it so that {@code throw ctx.failPermanently("...")} ends a branch.
     */
    PermanentFailureException failPermanently(String reason);
}
