package io.forgeflow.domain.execution;

import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExecutionValuesTest {

    @Nested
    class Results {
        @Test
        void eachFactoryNamesItsOutcomeAndKeepsOutputAndError() {
            assertThat(ExecutionResult.succeeded("out"))
                    .isEqualTo(new ExecutionResult(AttemptOutcome.SUCCEEDED, "out", null));
            assertThat(ExecutionResult.failed("out", "exit code 1"))
                    .isEqualTo(new ExecutionResult(AttemptOutcome.FAILED, "out", "exit code 1"));
            assertThat(ExecutionResult.timedOut("out", "timed out after 5s"))
                    .isEqualTo(new ExecutionResult(AttemptOutcome.TIMED_OUT, "out", "timed out after 5s"));
            assertThat(ExecutionResult.cancelled("out", "operator"))
                    .isEqualTo(new ExecutionResult(AttemptOutcome.CANCELLED, "out", "operator"));
        }

        @Test
        void aPermanentFailureAndARetryAfterAreFailuresOnly() {
            ExecutionResult permanent = ExecutionResult.failedPermanently("out", "HTTP 404");
            assertThat(permanent).isEqualTo(new ExecutionResult(AttemptOutcome.FAILED, "out", "HTTP 404", true, null));
            assertThat(ExecutionResult.failed("", "x").permanent()).isFalse();
            assertThat(ExecutionResult.failed("", "x").retryAfter()).isNull();
            assertThat(ExecutionResult.failedRetryAfter("", "HTTP 503", Duration.ofSeconds(2)).retryAfter())
                    .isEqualTo(Duration.ofSeconds(2));
            assertThat(ExecutionResult.failedRetryAfter("", "HTTP 503", Duration.ZERO).retryAfter()).isZero();
            assertThatThrownBy(() -> new ExecutionResult(AttemptOutcome.TIMED_OUT, "", "t", true, null))
                    .hasMessageContaining("only a failed attempt can be permanent");
            assertThatThrownBy(() -> new ExecutionResult(AttemptOutcome.SUCCEEDED, "", null, false, Duration.ZERO))
                    .hasMessageContaining("retry-after");
            assertThatThrownBy(() -> new ExecutionResult(AttemptOutcome.FAILED, "", "x", true, Duration.ZERO))
                    .hasMessageContaining("retry-after");
            assertThatThrownBy(() -> ExecutionResult.failedRetryAfter("", "x", Duration.ofSeconds(-1)))
                    .hasMessageContaining("negative");
            assertThatThrownBy(() -> ExecutionResult.failedRetryAfter("", "x", null)).isInstanceOf(NullPointerException.class);
        }

        @Test
        void aSnoozeCarriesItsWaitFromZeroToThirtyDays() {
            ExecutionResult snoozed = ExecutionResult.snoozed("out", Duration.ofSeconds(30));
            assertThat(snoozed.outcome()).isEqualTo(AttemptOutcome.SNOOZED);
            assertThat(snoozed.snooze()).isEqualTo(Duration.ofSeconds(30));
            assertThat(snoozed.retryAfter()).isEqualTo(Duration.ofSeconds(30));
            assertThat(snoozed.error()).isEqualTo("snoozed for 30s");
            assertThat(snoozed.output()).isEqualTo("out");
            assertThat(snoozed.permanent()).isFalse();
            assertThat(ExecutionResult.snoozed("", Duration.ZERO).snooze()).isZero();
            assertThat(ExecutionResult.snoozed("", Duration.ZERO).error()).isEqualTo("snoozed for 0s");
            assertThat(ExecutionResult.snoozed("", Duration.ofMillis(1500)).error()).isEqualTo("snoozed for 1500ms");
            assertThat(ExecutionResult.snoozed("", Duration.ofMillis(200)).error()).isEqualTo("snoozed for 200ms");
            assertThat(ExecutionResult.snoozed("", ExecutionResult.MAX_SNOOZE).snooze()).isEqualTo(Duration.ofDays(30));
            assertThatThrownBy(() -> ExecutionResult.snoozed("", ExecutionResult.MAX_SNOOZE.plusSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 to 2592000 seconds");
            assertThatThrownBy(() -> ExecutionResult.snoozed("", Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a snooze must be");
            assertThatThrownBy(() -> new ExecutionResult(AttemptOutcome.SNOOZED, "", null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a snooze must be");
            assertThatThrownBy(() -> ExecutionResult.snoozed("", null)).isInstanceOf(NullPointerException.class);
            assertThat(ExecutionResult.failedRetryAfter("", "x", Duration.ofSeconds(2)).snooze()).isNull();
        }

        @Test
        void aGiveUpNamesItsReason() {
            ExecutionResult gaveUp = ExecutionResult.gaveUp("out", "the order was deleted");
            assertThat(gaveUp).isEqualTo(new ExecutionResult(AttemptOutcome.GAVE_UP, "out",
                    "gave up: the order was deleted"));
            assertThat(ExecutionResult.gaveUp("", null).error()).isEqualTo("gave up: no reason given");
            assertThat(ExecutionResult.gaveUp("", " ").error()).isEqualTo("gave up: no reason given");
            assertThat(gaveUp.snooze()).isNull();
            assertThatThrownBy(() -> new ExecutionResult(AttemptOutcome.GAVE_UP, "", "x", false, Duration.ZERO))
                    .hasMessageContaining("retry-after");
        }

        @Test
        void missingOutputIsEmpty() {
            assertThat(ExecutionResult.succeeded(null).output()).isEmpty();
        }

        @ParameterizedTest
        @EnumSource(value = AttemptOutcome.class, names = {"LEASE_EXPIRED", "RELEASED"})
        void outcomesTheQueueDecidesCannotComeFromAnExecutor(AttemptOutcome outcome) {
            assertThatThrownBy(() -> new ExecutionResult(outcome, "", null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(outcome.wireName()).hasMessageContaining("decided by the queue");
        }

        @ParameterizedTest
        @EnumSource(value = AttemptOutcome.class, names = {"SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "GAVE_UP"})
        void outcomesAnExecutorReportsAreAccepted(AttemptOutcome outcome) {
            assertThat(new ExecutionResult(outcome, "", null).outcome()).isEqualTo(outcome);
        }
    }

    @Nested
    class Contexts {
        final Cancellation cancellation = new Cancellation();

        @Test
        void aMissingPayloadIsEmptyAndOneByteOfOutputIsEnough() {
            ExecutionContext context = new ExecutionContext("r1", "j1", 1, null, Duration.ofSeconds(5), cancellation, 1);
            assertThat(context.payload()).isEmpty();
            assertThat(context.maxOutputBytes()).isEqualTo(1);
        }

        @Test
        void thePayloadIsKept() {
            ExecutionContext context = new ExecutionContext("r1", "j1", 1, Map.of("command", "true"),
                    Duration.ofSeconds(5), cancellation, ExecutionContext.DEFAULT_MAX_OUTPUT_BYTES);
            assertThat(context.payload()).containsEntry("command", "true");
        }

        @Test
        void noOutputBudgetIsRefused() {
            assertThatThrownBy(() -> new ExecutionContext("r1", "j1", 1, Map.of(), Duration.ofSeconds(5), cancellation, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxOutputBytes must be >= 1");
        }
    }

    @Test
    void anUnconfiguredExecutorMayReachPrivateAddresses() {
        assertThat(ExecutorSettings.unguarded().privateNetworkTargetsAllowed()).isTrue();
    }
}
