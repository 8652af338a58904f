package io.forgeflow.domain.port;

import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;

import java.util.List;

/**
 * Named queues: the ones that hold runs or jobs or have settings, their depth, and their cluster-wide limits and
 * pause switch. A queue exists as soon as a job names it; settings are kept for a queue that has no job yet. Queues are
 * a tenant's: the settings of (tenant, name) govern that tenant's runs of that queue, and its counts are of them.
 */
public interface QueueRepository {

    /** Every known queue of {@code tenant} by name, or of every tenant by tenant and name when it is null. */
    List<QueueInfo> list(String tenant);

    /** One queue of a tenant; a name no job uses and nobody configured reads as an empty, unlimited queue. */
    QueueInfo get(String tenant, String name);

    /**
     * Sets the queue's limits. {@code maxRunning} and {@code rateLimit} are applied only where {@code set*} is true
     * (a null value clears that limit); the others keep their value. Returns the queue as it is now.
     */
    QueueInfo configure(String tenant, String name, boolean setMaxRunning, boolean setRateLimit, QueueLimits limits);

    /** Pauses or resumes the tenant's queue on every node (claims check it each time). Returns the queue as it is now. */
    QueueInfo setPaused(String tenant, String name, boolean paused);
}
