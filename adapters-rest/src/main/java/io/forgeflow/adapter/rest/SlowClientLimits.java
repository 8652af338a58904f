package io.forgeflow.adapter.rest;

import java.time.Duration;

/**
 * What a slow client may hold: connections per client address, and the pace of a request body.
 *
 * @param maxConnectionsPerAddress the most open connections from one client address (default 1,024); the next one is
 *                                 closed unanswered. Behind a reverse proxy every client is the proxy: raise it there
 * @param minBytesPerSecond        the slowest a body may arrive once its grace is over, in bytes per second
 *                                 (default 8,192; 0: no minimum, a stalled body then ends at the idle timeout)
 * @param grace                    how long a body may arrive at any pace, from the node's first read of it (default 3 s)
 */
public record SlowClientLimits(int maxConnectionsPerAddress, long minBytesPerSecond, Duration grace) {
    /** 1,024 connections per address; after 3 s, at least 8 KiB/s. */
    public static final SlowClientLimits DEFAULTS = new SlowClientLimits(1024, 8192, Duration.ofSeconds(3));

    public SlowClientLimits {
        if (maxConnectionsPerAddress < 1) {
            throw new IllegalArgumentException("maxConnectionsPerAddress must be at least 1, was "
                    + maxConnectionsPerAddress);
        }
        if (minBytesPerSecond < 0) {
            throw new IllegalArgumentException("minBytesPerSecond must be 0 or more, was " + minBytesPerSecond);
        }
        if (grace == null || grace.isNegative()) {
            throw new IllegalArgumentException("grace must be 0 or more, was " + grace);
        }
    }
}
