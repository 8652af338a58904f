package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShellRunExecutorTest {
    final ShellRunExecutor shell = new ShellRunExecutor();

    @Test
    void isNamedShell() {
        assertThat(shell.name()).isEqualTo("shell");
    }

    @Nested
    class Validate {
        @Test
        void acceptsACommand() {
            assertThatCode(() -> shell.validate(Map.of("command", "echo hello | tr a-z A-Z"))).doesNotThrowAnyException();
        }

        @Test
        void rejectsAMissingCommand() {
            assertRejected(Map.of(), "payload.command", "is required");
        }

        @Test
        void rejectsANullPayloadAsAMissingCommand() {
            assertRejected(null, "payload.command", "is required");
        }

        @Test
        void rejectsANullCommandAsAMissingOne() {
            Map<String, Object> payload = new HashMap<>();
            payload.put("command", null);
            assertRejected(payload, "payload.command", "is required");
        }

        @Test
        void rejectsABlankCommand() {
            assertRejected(Map.of("command", "  \n"), "payload.command", "must not be blank");
        }

        @Test
        void rejectsACommandThatIsNotAString() {
            assertRejected(Map.of("command", 42), "payload.command", "must be a string");
            assertRejected(Map.of("command", List.of("echo", "hi")), "payload.command", "got an array");
        }

        @Test
        void rejectsAnUnknownKeySoThatATypoIsNotIgnored() {
            assertRejected(Map.of("command", "true", "comand", "false"), "payload.comand", "is not a field of the shell executor");
        }

        @Test
        void rejectsANulCharacterWhichNoProcessArgumentCanHold() {
            assertRejected(Map.of("command", "echo a\0b"), "payload.command", "NUL");
        }

        @Test
        void rejectsACommandLongerThanLinuxPassesToAProcess() {
            assertRejected(Map.of("command", "#" + "x".repeat(128 * 1024)), "payload.command", "at most 131071 bytes");
        }

        private void assertRejected(Map<String, Object> payload, String field, String message) {
            assertThatThrownBy(() -> shell.validate(payload))
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo(field);
                        assertThat(e.getMessage()).contains(field).contains(message);
                    });
        }
    }

    @Nested
    class ExecuteWithoutStarting {
        @Test
        void anInvalidPayloadFailsTheAttemptInsteadOfThrowing() {
            ExecutionResult result = shell.execute(anAttempt().withPayload(Map.of("command", 7)).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).startsWith("invalid payload: payload.command must be a string");
        }

        @Test
        void aShellThatCannotBeStartedFailsWithAClearError() {
            ShellRunExecutor broken = new ShellRunExecutor(ShellRunExecutor.Settings.defaults()
                    .withShell(Path.of("/nonexistent/sh")));

            ExecutionResult result = broken.execute(anAttempt().withPayload(Map.of("command", "true")).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).isEqualTo(
                    "could not start the command: /nonexistent/sh does not exist or is not executable");
        }

        @Test
        void anAttemptCancelledBeforeItStartsNeverStarts() {
            Cancellation cancellation = new Cancellation();
            cancellation.cancel("operator");

            ExecutionResult result = shell.execute(anAttempt().withCancellation(cancellation)
                    .withPayload(Map.of("command", "true")).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(result.error()).isEqualTo("cancelled (operator) before it started");
        }
    }
}
