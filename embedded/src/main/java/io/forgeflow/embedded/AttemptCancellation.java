package io.forgeflow.embedded;

import io.forgeflow.domain.execution.Cancellation;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@link JobCancellation} over the domain's one-way latch, plus a latch to wait on. */
final class AttemptCancellation implements JobCancellation {
    private final Cancellation latch = new Cancellation();
    private final CountDownLatch fired = new CountDownLatch(1);

    AttemptCancellation() {
        latch.onCancel(fired::countDown);
    }

    /** Fires (first call wins). */
    void cancel(String reason) {
        latch.cancel(reason);
    }

    @Override
    public boolean isCancelled() {
        return latch.isCancelled();
    }

    @Override
    public String reason() {
        return latch.reason();
    }

    @Override
    public void throwIfCancelled() {
        if (latch.isCancelled()) {
            throw new CancellationException(latch.reason());
        }
    }

    @Override
    public boolean await(Duration max) throws InterruptedException {
        return fired.await(Math.max(0, max.toNanos()), TimeUnit.NANOSECONDS);
    }

    @Override
    public void onCancel(Runnable callback) {
        latch.onCancel(callback);
    }
}
