package io.forgeflow.application.worker;

import io.forgeflow.domain.backoff.RetryPolicy;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a worker behaves.
 *
 * @param workerId          this worker's identity in leases and attempt rows (unique in the cluster)
 * @param concurrency       execution slots: at most this many runs at once (default 16)
 * @param pollInterval      how often an idle worker looks for due runs without a wake-up signal (default 1 s)
 * @param lease             how long a claim or heartbeat holds a run (default 30 s)
 * @param heartbeatInterval how often leases are extended (default 10 s; must be well under the lease)
 * @param drainGrace        on shutdown, how long in-flight runs may finish before they are released (default 60 s)
 * @param maxOutputBytes    the most output kept per attempt (default 64 KiB, the tail)
 * @param retryPolicy       backoff for failed attempts
 * @param lanes             which queues the worker takes, and into which slots ({@link QueueLane#parse}); their slots
 *                          add up to {@code concurrency}
 */
public record WorkerSettings(String workerId, int concurrency, Duration pollInterval, Duration lease,
                             Duration heartbeatInterval, Duration drainGrace, int maxOutputBytes,
                             RetryPolicy retryPolicy, List<QueueLane> lanes) {

    /** A worker taking every queue into {@code concurrency} slots. */
    public WorkerSettings(String workerId, int concurrency, Duration pollInterval, Duration lease,
                          Duration heartbeatInterval, Duration drainGrace, int maxOutputBytes, RetryPolicy retryPolicy) {
        this(workerId, concurrency, pollInterval, lease, heartbeatInterval, drainGrace, maxOutputBytes, retryPolicy,
                QueueLane.all(Math.max(1, Math.min(concurrency, QueueLane.MAX_SLOTS))));
    }

    /** The same settings with these lanes (concurrency becomes the sum of their slots). */
    public WorkerSettings withLanes(List<QueueLane> newLanes) {
        int total = newLanes.stream().mapToInt(QueueLane::slots).sum();
        return new WorkerSettings(workerId, total, pollInterval, lease, heartbeatInterval, drainGrace, maxOutputBytes,
                retryPolicy, newLanes);
    }

    public WorkerSettings {
        Objects.requireNonNull(lanes, "lanes");
        lanes = List.copyOf(lanes);
        if (lanes.isEmpty()) {
            throw new IllegalArgumentException("a worker needs at least one queue lane");
        }
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        if (workerId.isBlank() || workerId.length() > 200) {
            throw new IllegalArgumentException("worker id must be 1 to 200 characters");
        }
        if (concurrency < 1 || concurrency > 1000) {
            throw new IllegalArgumentException("concurrency must be between 1 and 1000, was " + concurrency);
        }
        int laneSlots = lanes.stream().mapToInt(QueueLane::slots).sum();
        if (laneSlots != concurrency) {
            throw new IllegalArgumentException("the queue lanes' slots (" + laneSlots + ") must add up to the "
                    + "concurrency (" + concurrency + ")");
        }
        positive("pollInterval", pollInterval);
        positive("lease", lease);
        positive("heartbeatInterval", heartbeatInterval);
        if (drainGrace == null || drainGrace.isNegative()) {
            throw new IllegalArgumentException("drainGrace must not be negative");
        }
        if (heartbeatInterval.multipliedBy(2).compareTo(lease) > 0) {
            throw new IllegalArgumentException("heartbeat interval (" + heartbeatInterval + ") must be at most half the "
                    + "lease (" + lease + "), or a single late heartbeat loses every lease");
        }
        if (maxOutputBytes < 1) {
            throw new IllegalArgumentException("maxOutputBytes must be >= 1");
        }
    }

    private static void positive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }
}
