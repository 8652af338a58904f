package io.forgeflow.domain.port;

import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;

import java.util.Map;

/**
 * Runs one attempt of a run: a shell command, an HTTP call, or anything a plug-in adds. Implementations are
 * discovered with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/io.forgeflow.domain.port.RunExecutor}) and must be thread-safe: a worker calls
 * {@link #execute} from many threads at once.
 *
 * <p>An executor that starts processes must not hand them the node's environment, which holds its secrets (the
 * database URL, API and metrics tokens): give each process the job environment of the shell executor, an allow-list
 * ({@code PATH}, {@code HOME}, {@code LANG}, {@code LC_*}, {@code TZ}, {@code USER}, {@code TMPDIR}, the names in
 * {@code FORGEFLOW_SHELL_ENV}) plus {@code FORGEFLOW_RUN_ID}, {@code FORGEFLOW_JOB_ID} and {@code FORGEFLOW_ATTEMPT}.
 * adapters-executors' {@code JobEnvironment.ofNode().applyTo(processBuilder.environment(), ...)} does exactly that.
 */
public interface RunExecutor {

    /** The name jobs use in their {@code executor} field, e.g. {@code shell}. Lower case, unique per node. */
    String name();

    /**
     * Checks a payload at submission. Throws a {@code ValidationException} whose field is
     * {@code payload.<name>} (e.g. {@code payload.url}) and whose message says how to fix it.
     */
    void validate(Map<String, Object> payload);

    /**
     * Runs one attempt, blocking until it ends, the context's timeout passes (then TIMED_OUT) or its cancellation
     * fires (then CANCELLED). Failures are returned as data, never thrown.
     */
    ExecutionResult execute(ExecutionContext context);

    /** Frees shared resources (connection pools) when the node stops. */
    default void close() {
    }
}
