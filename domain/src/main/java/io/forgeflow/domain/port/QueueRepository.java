package io.forgeflow.domain.port;

import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;

import java.util.List;

/**
 * Named queues: the ones that hold runs or jobs or have settings, their depth, and their cluster-wide limits and
 * pause switch. A queue exists as soon as a job names it; settings are kept for a queue that has no job yet.
 */
public interface QueueRepository {

    /** Every known queue, by name. */
    List<QueueInfo> list();

    /** One queue; a name no job uses and nobody configured reads as an empty, unlimited queue. */
    QueueInfo get(String name);

    /**
     * Sets the queue's limits. {@code maxRunning} and {@code rateLimit} are applied only where {@code set*} is true
     * (a null value clears that limit); the others keep their value. Returns the queue as it is now.
     */
    QueueInfo configure(String name, boolean setMaxRunning, boolean setRateLimit, QueueLimits limits);

    /** Pauses or resumes the queue on every node (claims check it each time). Returns the queue as it is now. */
    QueueInfo setPaused(String name, boolean paused);
}
