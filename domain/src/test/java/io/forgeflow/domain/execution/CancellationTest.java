package io.forgeflow.domain.execution;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CancellationTest {
    final Cancellation cancellation = new Cancellation();
    final List<String> calls = new ArrayList<>();

    @Test
    void aFreshCancellationIsNotCancelledAndHasNoReason() {
        assertThat(cancellation.isCancelled()).isFalse();
        assertThat(cancellation.reason()).isNull();
    }

    @Test
    void cancellingRecordsTheReasonAndRunsTheCallbacksRegisteredBefore() {
        cancellation.onCancel(() -> calls.add("first"));
        cancellation.onCancel(() -> calls.add("second"));
        assertThat(calls).isEmpty();

        cancellation.cancel("lease lost");

        assertThat(cancellation.isCancelled()).isTrue();
        assertThat(cancellation.reason()).isEqualTo("lease lost");
        assertThat(calls).containsExactly("first", "second");
    }

    @Test
    void theFirstCancelWinsAndCallbacksRunOnce() {
        cancellation.onCancel(() -> calls.add("stop"));
        cancellation.cancel("operator");
        cancellation.cancel("shutdown");
        assertThat(cancellation.reason()).isEqualTo("operator");
        assertThat(calls).containsExactly("stop");
    }

    @Test
    void aCallbackRegisteredAfterCancellationRunsAtOnce() {
        cancellation.cancel("operator");
        cancellation.onCancel(() -> calls.add("late"));
        assertThat(calls).containsExactly("late");
    }

    @Test
    void aMissingReasonReadsCancelled() {
        cancellation.cancel(null);
        assertThat(cancellation.isCancelled()).isTrue();
        assertThat(cancellation.reason()).isEqualTo("cancelled");
    }
}
