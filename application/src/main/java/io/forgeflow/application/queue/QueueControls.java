package io.forgeflow.application.queue;

import io.forgeflow.domain.job.QueueNames;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.tenant.Tenants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;

/**
 * Operators' view and controls of named queues: list them, set their cluster-wide limits, pause and resume them.
 * Every change applies to the next claim of every node (claims read the settings each time); lifting a limit or
 * resuming wakes the workers at once. A queue is a tenant's: its settings govern that tenant's runs of it.
 */
public final class QueueControls {
    private static final Logger LOG = LoggerFactory.getLogger(QueueControls.class);

    private final QueueRepository queues;
    private final WorkSignal signal;

    public QueueControls(QueueRepository queues, WorkSignal signal) {
        this.queues = Objects.requireNonNull(queues, "queues");
        this.signal = Objects.requireNonNull(signal, "signal");
    }

    /** The queues of {@code tenant}, or of every tenant when it is null. */
    public List<QueueInfo> list(String tenant) {
        return queues.list(tenant == null ? null : Tenants.require("tenant", tenant));
    }

    /** A tenant's queue by name; a well-formed name nobody uses reads as an empty, open queue. */
    public QueueInfo get(String tenant, String name) {
        return queues.get(Tenants.require("tenant", tenant), QueueNames.require("name", name));
    }

    /**
     * Sets the limits that are given ({@code setMaxRunning}, {@code setRateLimit}); a null value clears that limit.
     */
    public QueueInfo configure(String tenant, String name, boolean setMaxRunning, boolean setRateLimit,
                               QueueLimits limits) {
        Tenants.require("tenant", tenant);
        QueueNames.require("name", name);
        QueueInfo after = queues.configure(tenant, name, setMaxRunning, setRateLimit, limits);
        LOG.info("queue {} of tenant {}: limits now max_running {}, rate limit {}", name, tenant,
                after.limits().maxRunning(), after.limits().rateLimit() == null ? "none"
                        : after.limits().rateLimit().count() + " per " + after.limits().rateLimit().perSeconds() + "s");
        signal.runsBecameDue(); // a raised or cleared limit may let waiting runs start
        return after;
    }

    public QueueInfo pause(String tenant, String name) {
        Tenants.require("tenant", tenant);
        QueueNames.require("name", name);
        QueueInfo after = queues.setPaused(tenant, name, true);
        LOG.info("queue {} of tenant {} paused: no run of it starts on any node until it is resumed", name, tenant);
        return after;
    }

    public QueueInfo resume(String tenant, String name) {
        Tenants.require("tenant", tenant);
        QueueNames.require("name", name);
        QueueInfo after = queues.setPaused(tenant, name, false);
        LOG.info("queue {} of tenant {} resumed", name, tenant);
        signal.runsBecameDue();
        return after;
    }
}
