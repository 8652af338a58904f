package io.forgeflow.application.worker;

import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.support.RunLogContext;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes the results of ended attempts: in batches (whatever accumulated while the previous batch was written, and
 * during a pause after it proportional to its duration, {@link BatchPacer}), isolating an acknowledgement the database
 * refuses so that it cannot hold back the others, and retrying through an outage. Owns the results waiting to be
 * written and the runs a drain gives back; the claimer asks {@link #behind()} before claiming more (back-pressure),
 * and the lease keeper heartbeats the attempts in {@link #awaiting()}.
 */
final class Acknowledger {
    private static final Logger LOG = LoggerFactory.getLogger(Acknowledger.class);

    /** The most acknowledgements written in one statement. */
    static final int MAX_ACK_BATCH = 1_000;
    /** Results waiting to be written beyond which nothing is claimed: one batch, or four times the slots if more. */
    static final int MAX_UNACKNOWLEDGED = 1_000;
    /** How often a lingering acknowledger looks whether a full batch is waiting. */
    static final long LINGER_CHECK_NANOS = 500_000L;

    private final WorkerSettings settings;
    private final RunQueue queue;
    private final BatchPacer pacer;
    private final Ticker ticker;
    private final WakeUp wakeUp;
    private final DueTimer dueTimer;
    private final WorkerListener listener;
    private final RunChanges changes;
    private final Tracing tracing;
    /** Runs whose final acknowledgement waits to be written: their run span is recorded once it is (tracing only). */
    private final Map<RunFence, Run> ending = new ConcurrentHashMap<>();
    private final LinkedBlockingDeque<Acknowledgement> pending = new LinkedBlockingDeque<>();
    /** The job of each run whose acknowledgement waits to be sent, for the log lines about a discarded one. */
    private final Map<RunFence, String> jobIds = new ConcurrentHashMap<>();
    /** Runs the drain stopped, given back to the queue when the worker stops, with their jobs. */
    private final Map<RunFence, String> toRelease = new ConcurrentHashMap<>();
    /** Acknowledgements taken from {@link #pending} and being written now. */
    private final AtomicInteger sending = new AtomicInteger();
    private volatile boolean hurry;
    private volatile boolean running;
    private Thread thread;

    Acknowledger(WorkerSettings settings, RunQueue queue, BatchPacer pacer, Ticker ticker, WakeUp wakeUp,
                 DueTimer dueTimer, WorkerListener listener, RunChanges changes) {
        this(settings, queue, pacer, ticker, wakeUp, dueTimer, listener, changes, Tracing.NONE);
    }

    Acknowledger(WorkerSettings settings, RunQueue queue, BatchPacer pacer, Ticker ticker, WakeUp wakeUp,
                 DueTimer dueTimer, WorkerListener listener, RunChanges changes, Tracing tracing) {
        this.tracing = tracing;
        this.settings = settings;
        this.queue = queue;
        this.pacer = pacer;
        this.ticker = ticker;
        this.wakeUp = wakeUp;
        this.dueTimer = dueTimer;
        this.listener = listener;
        this.changes = changes;
    }

    /** An attempt ended: its acknowledgement waits to be written. */
    void offer(Acknowledgement ack, String jobId) {
        jobIds.put(ack.fence(), jobId);
        pending.add(ack);
    }

    /**
     * An attempt of {@code run} ended: its acknowledgement waits to be written. When it ends the run, the run's span is
     * recorded once the database took it (a late acknowledgement ends nothing: the rescuer records that run's end).
     */
    void offer(Acknowledgement ack, Run run) {
        if (tracing != Tracing.NONE && ack.next().isTerminal()) {
            ending.put(ack.fence(), run);
        }
        offer(ack, run.jobId());
    }

    /** The drain stopped this attempt: the run goes back to the queue when the worker stops. */
    void released(RunFence fence, String jobId) {
        toRelease.put(fence, jobId);
    }

    /** The attempts whose results wait here: their leases must hold until they are written. */
    Set<RunFence> awaiting() {
        Set<RunFence> awaiting = new HashSet<>(jobIds.keySet());
        awaiting.addAll(toRelease.keySet());
        return awaiting;
    }

    /**
     * Finished attempts whose acknowledgement is not written yet. Slots free up as soon as an execution ends, so
     * without a bound a worker whose acknowledgements lag (a slow database) would keep claiming.
     */
    int unacknowledged() {
        return pending.size() + sending.get();
    }

    int maxUnacknowledged() {
        return Math.max(MAX_UNACKNOWLEDGED, 4 * settings.concurrency());
    }

    /** The database is behind with the results: claiming more would only lengthen the backlog. */
    boolean behind() {
        return unacknowledged() >= maxUnacknowledged();
    }

    /**
     * One batch: waits for company as long as the pacer says (less once a full batch waits, or the drain began), then
     * writes what waits. Returns how many it wrote; throws when the database took none (they wait again, first).
     */
    int runOnce() {
        if (pending.isEmpty()) {
            return 0;
        }
        linger(pacer.pauseNanos(ticker.nanos()));
        pacer.started(ticker.nanos());
        int written = flush();
        if (written > 0) {
            pacer.ended(ticker.nanos(), written);
        }
        return written;
    }

    /** Writes every result waiting (up to one batch) at once. Returns how many; throws when none could be written. */
    int flush() {
        List<Acknowledgement> batch = new ArrayList<>();
        pending.drainTo(batch, MAX_ACK_BATCH);
        if (batch.isEmpty()) {
            return 0;
        }
        sending.addAndGet(batch.size());
        try {
            List<Acknowledgement> left = write(batch);
            if (!left.isEmpty()) {
                for (int i = left.size() - 1; i >= 0; i--) {
                    pending.addFirst(left.get(i));
                }
                throw new IllegalStateException("the database took none of " + left.size()
                        + " acknowledgement(s); they wait for the next attempt");
            }
            return batch.size();
        } finally {
            sending.addAndGet(-batch.size());
            wakeUp.roomFreed(); // a claimer held back by unacknowledged runs may claim again
        }
    }

    /** Waits up to {@code nanos} on the ticker, less if a full batch is waiting or the drain began. */
    private void linger(long nanos) {
        long deadline = ticker.nanos() + nanos;
        long left;
        while (!hurry && pending.size() < MAX_ACK_BATCH && (left = deadline - ticker.nanos()) > 0) {
            ticker.park(Math.min(left, LINGER_CHECK_NANOS));
        }
    }

    /**
     * Writes a batch; when the database refuses it, writes each acknowledgement alone, and one still refused once more
     * without its output and with an error saying why, so a result that cannot be stored (output PostgreSQL rejects)
     * never holds back the others. Returns what could not be written even so (the database is down).
     */
    private List<Acknowledgement> write(List<Acknowledgement> batch) {
        try {
            send(batch);
            return List.of();
        } catch (RuntimeException e) {
            if (batch.size() == 1 && isBare(batch.get(0))) {
                LOG.warn("acknowledging 1 run failed ({})", e.toString());
                return batch;
            }
            List<Acknowledgement> left = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                Acknowledgement ack = batch.get(i);
                try {
                    send(List.of(ack));
                } catch (RuntimeException alone) {
                    try {
                        send(List.of(bare(ack, alone)));
                        LOG.error("run {} attempt {}: its result could not be stored ({}); stored without output",
                                ack.fence().runId(), ack.fence().attempt(), alone.toString());
                    } catch (RuntimeException stillFailing) {
                        left.addAll(batch.subList(i, batch.size())); // the database, not this acknowledgement
                        break;
                    }
                }
            }
            if (!left.isEmpty()) {
                LOG.warn("acknowledging {} run(s) failed ({})", left.size(), e.toString());
            }
            return left;
        }
    }

    private static Acknowledgement bare(Acknowledgement ack, RuntimeException why) {
        String error = "the attempt's result could not be stored: " + why.getClass().getSimpleName()
                + (ack.error() == null ? "" : "; the executor reported: " + ack.error().replace('\0', ' '));
        return new Acknowledgement(ack.fence(), ack.outcome(), ack.next(), ack.retryDelay(), "", error);
    }

    private static boolean isBare(Acknowledgement ack) {
        return (ack.output() == null || ack.output().isEmpty()) && ack.error() != null
                && ack.error().startsWith("the attempt's result could not");
    }

    private void send(List<Acknowledgement> batch) {
        Set<RunFence> applied = queue.acknowledge(batch);
        Duration soonestRetry = null;
        for (Acknowledgement ack : batch) {
            if (ack.next() == RunStatus.PENDING && applied.contains(ack.fence())
                    && (soonestRetry == null || ack.retryDelay().compareTo(soonestRetry) < 0)) {
                soonestRetry = ack.retryDelay();
            }
        }
        if (soonestRetry != null) {
            dueTimer.retryDueAfter(soonestRetry);
        }
        List<Acknowledgement> done = new ArrayList<>(applied.size());
        List<String> doneJobs = new ArrayList<>(applied.size());
        for (Acknowledgement ack : batch) {
            String jobId = jobIds.remove(ack.fence());
            Run ended = ending.isEmpty() ? null : ending.remove(ack.fence());
            if (applied.contains(ack.fence())) {
                done.add(ack);
                doneJobs.add(jobId);
                if (ended != null) {
                    tracing.runEnded(ended, ack.next(), ack.error());
                }
            } else {
                listener.fenceLost(ack.fence(), "late acknowledgement");
                try (RunLogContext ignored = RunLogContext.of(ack.fence().runId(), jobId, ack.fence().attempt(),
                        ack.fence().workerId())) {
                    LOG.warn("run {} attempt {}: acknowledgement ({}) discarded: the lease was lost before it arrived, "
                            + "so another worker may run it again", ack.fence().runId(), ack.fence().attempt(),
                            ack.outcome().wireName());
                }
            }
        }
        changes.ended(done, doneJobs);
    }

    /** Starts writing on a thread of its own. */
    void start() {
        running = true;
        thread = new Thread(this::loop, "ff-acknowledger-" + settings.workerId());
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        Duration backoff = Duration.ofMillis(100);
        while (running || !pending.isEmpty()) {
            try {
                Acknowledgement first = pending.pollFirst(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                sending.incrementAndGet(); // still counted as unacknowledged while it goes back in front
                pending.addFirst(first);
                sending.decrementAndGet();
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
                continue;
            }
            try {
                runOnce();
                backoff = Duration.ofMillis(100);
            } catch (RuntimeException e) {
                if (!running) {
                    return; // stop() writes once more
                }
                LOG.warn("{}; retrying in {} ms", e.getMessage(), backoff.toMillis());
                sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5)
                        : backoff.multipliedBy(2);
            }
        }
    }

    /** The drain began: a pause for company ends at once. */
    void hurry() {
        hurry = true;
    }

    /** Stops the thread (what it is writing, it writes first). */
    void stop() {
        hurry = true;
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The worker stops: writes what is left, then gives back the runs the drain stopped and {@code stillHeld} (executors
     * that ignored their cancellation). Results that cannot be written are dropped: their runs return through lease
     * recovery.
     */
    void drain(Map<RunFence, String> stillHeld) {
        try {
            while (flush() > 0) {
                // until nothing is left
            }
        } catch (RuntimeException e) {
            LOG.error("worker {}: {} acknowledgement(s) could not be written before stopping; those runs return to the "
                    + "queue when their leases expire", settings.workerId(), pending.size(), e);
            pending.clear();
            jobIds.clear();
            ending.clear();
        }
        Map<RunFence, String> release = new java.util.HashMap<>(toRelease);
        toRelease.clear();
        release.putAll(stillHeld);
        if (release.isEmpty()) {
            return;
        }
        try {
            Set<RunFence> done = queue.release(release.keySet());
            changes.released(done, release);
            LOG.info("worker {} released {} run(s) back to the queue", settings.workerId(), done.size());
        } catch (RuntimeException e) {
            LOG.error("worker {} could not release {} run(s); they return when their leases expire",
                    settings.workerId(), release.size(), e);
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
