package io.forgeflow.adapter.postgres;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Group commit: writes of concurrent callers share one transaction, so that many of them pay for one commit. On a
 * small machine the commit (its WAL flush), not the statement, bounds writes made one transaction at a time: the bare
 * submission statement does about 2,400 transactions/s with 4 clients on the benchmark machine (docs/BENCHMARKS.md).
 *
 * <p>It has no thread and no timer of its own, and never delays a write to wait for company. A caller that finds
 * fewer than {@code maxBatches} batches being written takes everything waiting (its own write included, up to
 * {@code maxBatchSize}) and writes it at once, on its own thread; callers that arrive meanwhile queue up and go
 * together in the next batch, written by whichever of them gets there first. A lone caller writes alone, as before.
 *
 * <p>Failures stay with their own write. When a batch's transaction fails before its commit ({@link NothingWritten}:
 * rolled back, nothing stored), each of its writes is retried alone in its own transaction, so a bad write fails only
 * its caller. Any other failure (the commit itself failed, so whether it took effect is unknown) is given to every
 * caller of the batch and nothing is retried: a retry could store a write twice.
 *
 * <p>A failure because the database is away ({@link DatabaseOutages}: refused or broken connections, a restart, the
 * pool's timeout) reaches every caller as an {@link io.forgeflow.domain.error.UnavailableException} (the API's 503),
 * and a batch rolled back by one is not retried write by write: each retry would wait for the same absent database.
 *
 * @param <I> one caller's write
 * @param <O> its outcome
 */
final class GroupCommit<I, O> {
    /** Writes items; {@link GroupCommit} decides which calls go together. */
    interface Writer<I, O> {
        /**
         * Writes all items in one transaction, in any order it likes, and returns their outcomes in the items' order.
         *
         * @throws NothingWritten when the transaction failed and was rolled back before its commit
         */
        List<O> writeTogether(List<I> items);

        /** Writes one item in its own transaction. */
        O writeAlone(I item);
    }

    /** The transaction of a batch failed before its commit and was rolled back: none of its writes took effect. */
    static final class NothingWritten extends RuntimeException {
        NothingWritten(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static final class Slot<I, O> {
        final I item;
        boolean done;
        O result;
        RuntimeException failure;

        Slot(I item) {
            this.item = item;
        }
    }

    private final Object lock = new Object();
    private final ArrayDeque<Slot<I, O>> waiting = new ArrayDeque<>();
    private final int maxBatches;
    private final int maxBatchSize;
    private final Writer<I, O> writer;
    private int writing;
    private long batchesTogether;
    private long writtenTogether;
    private int largestBatch;

    /**
     * @param maxBatches   batches written at the same time (each on its own connection), at least 1
     * @param maxBatchSize writes in one batch, at least 1
     */
    GroupCommit(int maxBatches, int maxBatchSize, Writer<I, O> writer) {
        if (maxBatches < 1 || maxBatchSize < 1) {
            throw new IllegalArgumentException("maxBatches and maxBatchSize must be at least 1, were "
                    + maxBatches + " and " + maxBatchSize);
        }
        this.maxBatches = maxBatches;
        this.maxBatchSize = maxBatchSize;
        this.writer = Objects.requireNonNull(writer, "writer");
    }

    /**
     * Writes the item, alone or with other callers' items, and returns its outcome once its transaction committed.
     * Waits without giving up when interrupted (the write may already be under way; the interrupt is kept).
     *
     * @throws RuntimeException this write's own failure, or the failure of the commit it shared
     */
    O write(I item) {
        Slot<I, O> mine = new Slot<>(item);
        boolean interrupted = false;
        try {
            synchronized (lock) {
                waiting.addLast(mine);
            }
            while (true) {
                List<Slot<I, O>> batch;
                synchronized (lock) {
                    // not done and nothing to take: my write is in a batch being written by another caller
                    while (!mine.done && (writing >= maxBatches || waiting.isEmpty())) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                    if (mine.done) {
                        if (mine.failure != null) {
                            throw mine.failure;
                        }
                        return mine.result;
                    }
                    batch = new ArrayList<>(Math.min(waiting.size(), maxBatchSize));
                    while (!waiting.isEmpty() && batch.size() < maxBatchSize) {
                        batch.add(waiting.pollFirst());
                    }
                    writing++;
                }
                try {
                    writeBatch(batch);
                } finally {
                    synchronized (lock) {
                        writing--;
                        lock.notifyAll();
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void writeBatch(List<Slot<I, O>> batch) {
        try {
            if (batch.size() == 1) {
                writeAlone(batch.get(0));
                return;
            }
            List<I> items = new ArrayList<>(batch.size());
            for (Slot<I, O> slot : batch) {
                items.add(slot.item);
            }
            List<O> results;
            try {
                results = writer.writeTogether(items);
            } catch (NothingWritten rolledBack) {
                if (DatabaseOutages.isOutage(rolledBack)) {
                    for (Slot<I, O> slot : batch) {
                        finish(slot, null, rolledBack);
                    }
                    return;
                }
                for (Slot<I, O> slot : batch) {
                    writeAlone(slot);
                }
                return;
            } catch (RuntimeException unknown) {
                for (Slot<I, O> slot : batch) {
                    finish(slot, null, unknown);
                }
                return;
            }
            if (results.size() != items.size()) {
                throw new IllegalStateException("a batch of " + items.size() + " writes returned " + results.size()
                        + " outcomes");
            }
            synchronized (lock) {
                batchesTogether++;
                writtenTogether += items.size();
                largestBatch = Math.max(largestBatch, items.size());
            }
            for (int i = 0; i < batch.size(); i++) {
                finish(batch.get(i), results.get(i), null);
            }
        } catch (RuntimeException | Error e) {
            // nobody may wait forever: whatever is not finished fails with this
            for (Slot<I, O> slot : batch) {
                finish(slot, null, e instanceof RuntimeException r ? r
                        : new IllegalStateException("a group commit failed: " + e, e));
            }
            throw e;
        }
    }

    private void writeAlone(Slot<I, O> slot) {
        O result;
        try {
            result = writer.writeAlone(slot.item);
        } catch (RuntimeException e) {
            finish(slot, null, e);
            return;
        }
        finish(slot, result, null);
    }

    private void finish(Slot<I, O> slot, O result, RuntimeException failure) {
        synchronized (lock) {
            if (slot.done) {
                return;
            }
            slot.result = result;
            slot.failure = failure == null ? null : DatabaseOutages.translate(failure);
            slot.done = true;
        }
    }

    /** Writes queued for the next batch. */
    int waiting() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    /** Batches of two or more writes committed together so far. */
    long batchesTogether() {
        synchronized (lock) {
            return batchesTogether;
        }
    }

    /** Writes committed in batches of two or more so far. */
    long writtenTogether() {
        synchronized (lock) {
            return writtenTogether;
        }
    }

    /** The most writes one commit has carried so far (0 until two went together). */
    int largestBatch() {
        synchronized (lock) {
            return largestBatch;
        }
    }
}
