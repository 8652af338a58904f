package io.forgeflow.application.queue;

import io.forgeflow.domain.job.QueueNames;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;

/**
 * Operators' view and controls of named queues: list them, set their cluster-wide limits, pause and resume them.
 * Every change applies to the next claim of every node (claims read the settings each time); lifting a limit or
 * resuming wakes the workers at once.
 */
public final class QueueControls {
    private static final Logger LOG = LoggerFactory.getLogger(QueueControls.class);

    private final QueueRepository queues;
    private final WorkSignal signal;

    public QueueControls(QueueRepository queues, WorkSignal signal) {
        this.queues = Objects.requireNonNull(queues, "queues");
        this.signal = Objects.requireNonNull(signal, "signal");
    }

    public List<QueueInfo> list() {
        return queues.list();
    }

    /** A queue by name; a well-formed name nobody uses reads as an empty, open queue. */
    public QueueInfo get(String name) {
        return queues.get(QueueNames.require("name", name));
    }

    /**
     * Sets the limits that are given ({@code setMaxRunning}, {@code setRateLimit}); a null value clears that limit.
     */
    public QueueInfo configure(String name, boolean setMaxRunning, boolean setRateLimit, QueueLimits limits) {
        QueueNames.require("name", name);
        QueueInfo after = queues.configure(name, setMaxRunning, setRateLimit, limits);
        LOG.info("queue {}: limits now max_running {}, rate limit {}", name, after.limits().maxRunning(),
                after.limits().rateLimit() == null ? "none" : after.limits().rateLimit().count() + " per "
                        + after.limits().rateLimit().perSeconds() + "s");
        signal.runsBecameDue(); // a raised or cleared limit may let waiting runs start
        return after;
    }

    public QueueInfo pause(String name) {
        QueueNames.require("name", name);
        QueueInfo after = queues.setPaused(name, true);
        LOG.info("queue {} paused: no run of it starts on any node until it is resumed", name);
        return after;
    }

    public QueueInfo resume(String name) {
        QueueNames.require("name", name);
        QueueInfo after = queues.setPaused(name, false);
        LOG.info("queue {} resumed", name);
        signal.runsBecameDue();
        return after;
    }
}
