package io.forgeflow.domain.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * A queue as operators see it: a tenant's (README "Tenants"), since each tenant's queues have their own settings.
 *
 * @param tenant  the tenant whose runs and settings these are
 * @param name    the queue's name
 * @param pending runs waiting (due now or later)
 * @param due     pending runs that are due now (the backlog)
 * @param running runs running now
 * @param lag     how long the oldest due pending run has waited; zero when none is due
 * @param paused  no run of the queue starts on any node while true
 * @param limits  the cluster-wide limits
 * @param startsInWindow for a rate-limited queue, starts counted in the current window; else 0
 */
public record QueueInfo(String tenant, String name, long pending, long due, long running, Duration lag, boolean paused,
                        QueueLimits limits, long startsInWindow) {
    public QueueInfo {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(name, "name");
        lag = lag == null || lag.isNegative() ? Duration.ZERO : lag;
        limits = limits == null ? QueueLimits.NONE : limits;
    }
}
