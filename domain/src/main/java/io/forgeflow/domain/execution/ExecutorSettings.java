package io.forgeflow.domain.execution;

import java.time.Duration;
import java.util.Objects;

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
 * @param supervisorSilence            how long an executor that starts processes (the shell executor's supervisor)
 *                                     lets them run without hearing from the worker's JVM before it kills them; see
 *                                     {@link #supervisorSilenceFor}
 * @param jobUser                      the OS user that shell jobs run as ({@code FORGEFLOW_JOB_USER}), or null: the
 *                                     node's own
 */
public record ExecutorSettings(boolean privateNetworkTargetsAllowed, Duration supervisorSilence, String jobUser) {
    private static final Duration MIN_SILENCE = Duration.ofMillis(500);
    /** The silence for the default lease (30 s) and heartbeat (10 s): 10 s. */
    public static final Duration DEFAULT_SUPERVISOR_SILENCE = supervisorSilenceFor(Duration.ofSeconds(30),
            Duration.ofSeconds(10));

    public ExecutorSettings {
        Objects.requireNonNull(supervisorSilence, "supervisorSilence");
        if (supervisorSilence.isNegative() || supervisorSilence.isZero()) {
            throw new IllegalArgumentException("supervisorSilence must be positive, was " + supervisorSilence);
        }
        if (jobUser != null && jobUser.isBlank()) {
            jobUser = null;
        }
    }

    /** Jobs run as the node's user. */
    public ExecutorSettings(boolean privateNetworkTargetsAllowed, Duration supervisorSilence) {
        this(privateNetworkTargetsAllowed, supervisorSilence, null);
    }

    /** The given SSRF setting, with the {@link #DEFAULT_SUPERVISOR_SILENCE}. */
    public ExecutorSettings(boolean privateNetworkTargetsAllowed) {
        this(privateNetworkTargetsAllowed, DEFAULT_SUPERVISOR_SILENCE);
    }

    /** What an executor assumes when nobody configures it: a development node on loopback, private targets allowed. */
    public static ExecutorSettings unguarded() {
        return new ExecutorSettings(true);
    }

    /**
     * Half of what is left of a lease after one heartbeat interval, at least 500 ms: {@code (lease - heartbeat) / 2}.
     * A worker that freezes at T last extended its leases after T - heartbeat, so they expire after
     * T - heartbeat + lease; its processes die by T + silence (plus a second of kill grace), half that margin earlier.
     * Lease 30 s, heartbeat 10 s: 10 s. Lease 4 s, heartbeat 1 s: 1.5 s.
     */
    public static Duration supervisorSilenceFor(Duration lease, Duration heartbeat) {
        Duration half = lease.minus(heartbeat).dividedBy(2);
        return Duration.ofNanos(Math.max(half.toNanos(), MIN_SILENCE.toNanos()));
    }
}
