package io.forgeflow.application.support;

import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The moment a caller gives up (a gRPC call's deadline), for the work done on its behalf on this thread: the database
 * adapter bounds every statement of that work by the time left, so nothing waits on, or changes, the database after
 * the caller was told {@code DEADLINE_EXCEEDED}.
 *
 * <pre>{@code
 * CallDeadline.within(remainingNanos, () -> useCase.pause(id));   // statements inside: at most remainingNanos
 * CallDeadline.remainingMillis();                                 // empty outside within(...)
 * }</pre>
 */
public final class CallDeadline {
    private static final ThreadLocal<Long> ENDS_AT = new ThreadLocal<>();
    private static final LongSupplier NANO_TIME = System::nanoTime;

    private CallDeadline() {
    }

    /** Runs {@code work} with a deadline {@code remainingNanos} from now, then restores the one before (if any). */
    public static <T> T within(long remainingNanos, Supplier<T> work) {
        return within(remainingNanos, work, NANO_TIME);
    }

    static <T> T within(long remainingNanos, Supplier<T> work, LongSupplier clock) {
        Long previous = ENDS_AT.get();
        long endsAt = clock.getAsLong() + remainingNanos;
        // a nested deadline never extends the outer one
        ENDS_AT.set(previous != null && previous - endsAt < 0 ? previous : endsAt);
        try {
            return work.get();
        } finally {
            if (previous == null) {
                ENDS_AT.remove();
            } else {
                ENDS_AT.set(previous);
            }
        }
    }

    /** Milliseconds left (0 once passed, rounded up otherwise), or empty when this thread works for no deadline. */
    public static OptionalLong remainingMillis() {
        return remainingMillis(NANO_TIME);
    }

    static OptionalLong remainingMillis(LongSupplier clock) {
        Long endsAt = ENDS_AT.get();
        if (endsAt == null) {
            return OptionalLong.empty();
        }
        long nanos = endsAt - clock.getAsLong();
        return OptionalLong.of(nanos <= 0 ? 0 : (nanos + 999_999) / 1_000_000);
    }
}
