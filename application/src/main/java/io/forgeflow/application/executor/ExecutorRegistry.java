package io.forgeflow.application.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.port.RunExecutor;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The executors a node knows. All known executors validate submissions (an api node accepts jobs for executors
 * its workers may not run); only the enabled ones are claimed and run by this node's worker
 * ({@code FORGEFLOW_EXECUTORS}).
 */
public final class ExecutorRegistry {
    private final Map<String, RunExecutor> known;
    private final Set<String> enabled;

    /**
     * @param executors the executors found on the classpath
     * @param enabledNames the names this node runs; null or empty means all of them
     * @throws IllegalArgumentException when an enabled name is not known, or two executors share a name
     */
    public ExecutorRegistry(Collection<? extends RunExecutor> executors, Set<String> enabledNames) {
        Map<String, RunExecutor> byName = new TreeMap<>();
        for (RunExecutor e : executors) {
            RunExecutor previous = byName.put(e.name(), e);
            if (previous != null) {
                throw new IllegalArgumentException("two executors are named '" + e.name() + "': "
                        + previous.getClass().getName() + " and " + e.getClass().getName());
            }
        }
        this.known = Collections.unmodifiableMap(byName);
        if (enabledNames == null || enabledNames.isEmpty()) {
            this.enabled = Collections.unmodifiableSet(new TreeSet<>(byName.keySet()));
        } else {
            for (String name : enabledNames) {
                if (!byName.containsKey(name)) {
                    throw new IllegalArgumentException("FORGEFLOW_EXECUTORS names '" + name
                            + "', which is not a known executor; known: " + String.join(", ", byName.keySet()));
                }
            }
            this.enabled = Collections.unmodifiableSet(new TreeSet<>(enabledNames));
        }
    }

    /** Checks that {@code executor} is known and accepts {@code payload}; throws a ValidationException if not. */
    public void validate(String executor, Map<String, Object> payload) {
        RunExecutor e = known.get(executor);
        if (e == null) {
            throw new ValidationException("executor", "executor '" + executor + "' is not known to this cluster: use one of "
                    + String.join(", ", known.keySet()));
        }
        e.validate(payload);
    }

    /** The executor this node runs under that name, if enabled here. */
    public Optional<RunExecutor> enabled(String name) {
        return enabled.contains(name) ? Optional.ofNullable(known.get(name)) : Optional.empty();
    }

    public Set<String> enabledNames() {
        return enabled;
    }

    public Set<String> knownNames() {
        return known.keySet();
    }

    /** Closes every executor (connection pools); called once when the node stops. */
    public void closeAll() {
        known.values().forEach(RunExecutor::close);
    }
}
