package io.forgeflow.embedded;

import io.forgeflow.domain.port.HandlerRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Set;

/**
 * Keeps this worker's handlers in the cluster's registry: announced at start and every heartbeat, valid for a few
 * heartbeats, withdrawn when the worker stops (a killed worker's entries expire). Owned by the worker's heartbeat
 * loop; {@link #runOnce()} is one announcement.
 */
final class HandlerAnnouncer {
    /** Entries stay valid this many heartbeat intervals after each announcement. */
    static final int VALID_HEARTBEATS = 3;

    private static final Logger LOG = LoggerFactory.getLogger(HandlerAnnouncer.class);

    private final HandlerRegistry registry;
    private final String workerId;
    private final Set<String> handlers;
    private final Duration validFor;

    HandlerAnnouncer(HandlerRegistry registry, String workerId, Set<String> handlers, Duration heartbeatInterval) {
        this.registry = registry;
        this.workerId = workerId;
        this.handlers = Set.copyOf(handlers);
        this.validFor = heartbeatInterval.multipliedBy(VALID_HEARTBEATS);
    }

    /** Announces the handlers once (a failure is thrown: the loop logs it and tries at the next heartbeat). */
    void runOnce() {
        registry.announce(workerId, handlers, validFor);
    }

    /** Withdraws the handlers (a failure is logged: the entries then expire). */
    void withdraw() {
        try {
            registry.withdraw(workerId);
        } catch (RuntimeException e) {
            LOG.warn("worker {}: could not withdraw its handlers ({}); they expire within {}", workerId, e.toString(),
                    validFor);
        }
    }
}
