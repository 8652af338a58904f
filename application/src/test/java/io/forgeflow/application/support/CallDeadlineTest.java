package io.forgeflow.application.support;

import org.junit.jupiter.api.Test;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CallDeadlineTest {
    final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void noDeadlineOutsideWithin() {
        assertEquals(OptionalLong.empty(), CallDeadline.remainingMillis(now::get));
        assertEquals(OptionalLong.empty(), CallDeadline.remainingMillis());
    }

    @Test
    void theTimeLeftIsRoundedUpAndNeverNegative() {
        CallDeadline.within(1_500_000, () -> {
            assertEquals(OptionalLong.of(2), CallDeadline.remainingMillis(now::get));
            now.addAndGet(500_000);
            assertEquals(OptionalLong.of(1), CallDeadline.remainingMillis(now::get));
            now.addAndGet(999_999);
            assertEquals(OptionalLong.of(1), CallDeadline.remainingMillis(now::get));
            now.addAndGet(1);
            assertEquals(OptionalLong.of(0), CallDeadline.remainingMillis(now::get));
            now.addAndGet(5_000_000);
            assertEquals(OptionalLong.of(0), CallDeadline.remainingMillis(now::get));
            return null;
        }, now::get);
        assertEquals(OptionalLong.empty(), CallDeadline.remainingMillis(now::get));
    }

    @Test
    void aNestedDeadlineNeverExtendsTheOuterOneAndTheOuterComesBack() {
        String answer = CallDeadline.within(10_000_000, () -> {
            CallDeadline.within(50_000_000, () -> {
                assertEquals(OptionalLong.of(10), CallDeadline.remainingMillis(now::get));
                return null;
            }, now::get);
            CallDeadline.within(3_000_000, () -> {
                assertEquals(OptionalLong.of(3), CallDeadline.remainingMillis(now::get));
                return null;
            }, now::get);
            assertEquals(OptionalLong.of(10), CallDeadline.remainingMillis(now::get));
            return "done";
        }, now::get);
        assertEquals("done", answer);
    }

    @Test
    void aFailureStillClearsTheDeadline() {
        assertThrows(IllegalStateException.class, () -> CallDeadline.within(1_000_000, () -> {
            throw new IllegalStateException("boom");
        }));
        assertEquals(OptionalLong.empty(), CallDeadline.remainingMillis(now::get));
    }

    @Test
    void theSystemClockIsUsedByDefault() {
        CallDeadline.within(60_000_000_000L, () -> {
            long left = CallDeadline.remainingMillis().orElseThrow();
            assertEquals(true, left > 50_000 && left <= 60_000, "left: " + left);
            return null;
        });
    }
}
