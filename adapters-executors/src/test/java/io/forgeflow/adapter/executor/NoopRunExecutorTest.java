package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NoopRunExecutorTest {
    final NoopRunExecutor noop = new NoopRunExecutor();
    final ExecutorService background = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopBackground() {
        background.shutdownNow();
    }

    @Test
    void isNamedNoop() {
        assertThat(noop.name()).isEqualTo("noop");
    }

    @Nested
    class Validate {
        @Test
        void acceptsAnEmptyPayloadAndASleepWithinRange() {
            assertThatCode(() -> {
                noop.validate(Map.of());
                noop.validate(null);
                noop.validate(Map.of("sleep_ms", 0));
                noop.validate(Map.of("sleep_ms", 60_000L));
            }).doesNotThrowAnyException();
        }

        @Test
        void rejectsASleepOutOfRangeOrNotAWholeNumber() {
            for (Object bad : new Object[] {-1, 60_001, 1.5, "100", true}) {
                assertThatThrownBy(() -> noop.validate(Map.of("sleep_ms", bad)))
                        .isInstanceOfSatisfying(ValidationException.class,
                                e -> assertThat(e.field()).isEqualTo("payload.sleep_ms"))
                        .hasMessageContaining("payload.sleep_ms");
            }
        }

        @Test
        void rejectsUnknownKeys() {
            assertThatThrownBy(() -> noop.validate(Map.of("sleep", 5)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("payload.sleep"));
        }
    }

    @Nested
    class Execute {
        @Test
        void succeedsAtOnce() {
            ExecutionResult result = noop.execute(anAttempt().build());

            assertThat(result).isEqualTo(ExecutionResult.succeeded("noop"));
        }

        @Test
        void sleepsAsAskedThenSucceeds() {
            long start = System.nanoTime();

            ExecutionResult result = noop.execute(anAttempt().withPayload(Map.of("sleep_ms", 50)).build());

            assertThat(result).isEqualTo(ExecutionResult.succeeded("noop: slept 50 ms"));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        }

        @Test
        void stopsSleepingWhenCancelled() throws Exception {
            Cancellation cancellation = new Cancellation();
            CompletableFuture<ExecutionResult> running = CompletableFuture.supplyAsync(() -> noop.execute(anAttempt()
                    .withCancellation(cancellation).withPayload(Map.of("sleep_ms", 60_000)).build()), background);

            cancellation.cancel("operator");

            assertThat(running.get(5, TimeUnit.SECONDS)).isEqualTo(ExecutionResult.cancelled("", "cancelled (operator)"));
        }

        @Test
        void timesOutWhenTheSleepOutlastsTheTimeout() {
            ExecutionResult result = noop.execute(anAttempt().withTimeout(Duration.ofMillis(20))
                    .withPayload(Map.of("sleep_ms", 60_000)).build());

            assertThat(result).isEqualTo(ExecutionResult.timedOut("", "timed out after 0.02s"));
        }

        @Test
        void anInvalidPayloadFailsTheAttempt() {
            assertThat(noop.execute(anAttempt().withPayload(Map.of("sleep_ms", -5)).build()).outcome())
                    .isEqualTo(AttemptOutcome.FAILED);
        }
    }
}
