package io.forgeflow.domain.port;

import io.forgeflow.domain.execution.ExecutorSettings;

/**
 * A {@link RunExecutor} that takes the node's {@link ExecutorSettings}. The server calls {@link #configure} once on
 * every executor that implements this interface, right after {@link java.util.ServiceLoader} created it and before
 * the first {@link #validate} or {@link #execute}; an executor that is never configured behaves as with
 * {@link ExecutorSettings#unguarded()}. Plug-ins that need no node settings implement {@link RunExecutor} only.
 */
public interface ConfigurableRunExecutor extends RunExecutor {

    /** Applies the node's settings. Called once, before any other call, from the thread that wires the node. */
    void configure(ExecutorSettings settings);
}
