package io.forgeflow.application.support;

import org.slf4j.MDC;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Puts a run's identity into the logging context (MDC keys {@value #RUN_ID}, {@value #JOB_ID}, {@value #ATTEMPT},
 * {@value #WORKER_ID}) for the lines logged inside a try-with-resources block, then restores what was there before:
 *
 * <pre>{@code
 * try (RunLogContext ignored = RunLogContext.of(run.id(), run.jobId(), run.attempt(), workerId)) {
 *     LOG.warn("lease lost ...");
 * }
 * }</pre>
 *
 * A null value leaves its key out. With {@code FORGEFLOW_LOG_FORMAT=json} these keys are fields of every line.
 */
public final class RunLogContext implements AutoCloseable {
    public static final String RUN_ID = "run_id";
    public static final String JOB_ID = "job_id";
    public static final String ATTEMPT = "attempt";
    public static final String WORKER_ID = "worker_id";

    private final Map<String, String> previous = new LinkedHashMap<>();

    private RunLogContext(Map<String, String> values) {
        values.forEach((key, value) -> {
            previous.put(key, MDC.get(key));
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        });
    }

    /** Sets the four keys (attempt as a number; null values are left out) until {@link #close()}. */
    public static RunLogContext of(String runId, String jobId, Integer attempt, String workerId) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put(RUN_ID, runId);
        values.put(JOB_ID, jobId);
        values.put(ATTEMPT, attempt == null ? null : Integer.toString(attempt));
        values.put(WORKER_ID, workerId);
        return new RunLogContext(values);
    }

    /** Restores the keys to what they were before. Never throws. */
    @Override
    public void close() {
        previous.forEach((key, value) -> {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        });
    }
}
