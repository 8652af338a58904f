package io.forgeflow.server;

import io.forgeflow.application.worker.QueueLane;

import java.util.Collection;

/**
 * How many database connections a node needs (README "Connection budget"). The pool's default size is the sum over
 * its roles: {@value #API} for {@code api} (concurrent requests that read or write), {@value #SCHEDULER} for
 * {@code scheduler} (the scheduler loop, retention, the notices, a spare), and for {@code worker}
 * {@value #WORKER_BASE} (claimer, acknowledger, heartbeat, lease deadlines) plus half its execution slots rounded up
 * (runs ending, saving output or checking their cancel at the same moment); at least 2. The defaults, every role and
 * 16 slots, give 24. Outside the pool a node holds {@value #STATELESS} connections without session state (NOTIFY
 * sender, readiness probe) and its session connections ({@link #sessions}).
 */
final class ConnectionBudget {
    static final int API = 8;
    static final int SCHEDULER = 4;
    static final int WORKER_BASE = 4;
    static final int STATELESS = 2;
    /** The pool size the built-in configuration carries: a YAML {@code database.maxSize} other than it is an override. */
    static final int BUILT_IN_MAX_SIZE = 24;

    private ConnectionBudget() {
    }

    /** The pool's default size for these roles and this many execution slots (worker role). */
    static int poolSize(Collection<String> roles, int slots) {
        int size = 0;
        if (roles.contains("api")) {
            size += API;
        }
        if (roles.contains("scheduler")) {
            size += SCHEDULER;
        }
        if (roles.contains("worker")) {
            size += WORKER_BASE + (slots + 1) / 2;
        }
        return Math.max(2, size);
    }

    /**
     * The node's pool size: {@code FORGEFLOW_DATABASE_POOL_SIZE} when set, else a YAML {@code database.maxSize} other
     * than the built-in one, else {@link #poolSize(Collection, int)} of its roles and slots.
     */
    static int poolSize(ForgeFlowSettings s, int configuredMaxSize) {
        if (s.databasePoolSize > 0) {
            return s.databasePoolSize;
        }
        if (configuredMaxSize != BUILT_IN_MAX_SIZE) {
            return configuredMaxSize;
        }
        return poolSize(s.roles, slots(s));
    }

    /** Every execution slot of the node's lanes ({@code FORGEFLOW_QUEUES} may give more than its concurrency). */
    static int slots(ForgeFlowSettings s) {
        return QueueLane.parse(s.queues, s.concurrency).stream().mapToInt(QueueLane::slots).sum();
    }

    /**
     * Direct connections holding session state: LISTEN, and the leader's advisory lock on a scheduler node; none
     * without a session connection ({@link DatabaseSettings.Mode#POLLING}).
     */
    static int sessions(Collection<String> roles, DatabaseSettings.Mode mode) {
        if (mode == DatabaseSettings.Mode.POLLING) {
            return 0;
        }
        return 1 + (roles.contains("scheduler") ? 1 : 0);
    }
}
