package io.forgeflow.domain.execution;

/**
 * Node-wide settings that the server hands to every executor implementing
 * {@link io.forgeflow.domain.port.ConfigurableRunExecutor}, once, before the executor validates or runs anything.
 * Executors created by {@link java.util.ServiceLoader} have no-arg constructors: this record is the one explicit
 * channel for what the operator configured.
 *
 * @param privateNetworkTargetsAllowed whether an executor that reaches out over the network (the http executor)
 *                                     may target loopback, private (RFC 1918, unique local) and link-local
 *                                     addresses. {@code false} is the SSRF guard: on by default when the node
 *                                     listens on a non-loopback address ({@code FORGEFLOW_HTTP_ALLOW_PRIVATE}
 *                                     overrides it).
 */
public record ExecutorSettings(boolean privateNetworkTargetsAllowed) {

    /** What an executor assumes when nobody configures it: a development node on loopback, private targets allowed. */
    public static ExecutorSettings unguarded() {
        return new ExecutorSettings(true);
    }
}
