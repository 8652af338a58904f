package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class RunSignalsTest {

    @Nested
    class Shell {
        @Test
        void exit75WithTheLastPrintedSecondsSnoozes() {
            String output = "FORGEFLOW_SNOOZE_SECONDS=5\nwaiting for the file\nFORGEFLOW_SNOOZE_SECONDS=300  \n";

            ExecutionResult result = RunSignals.fromShellExit(75, output);

            assertThat(result).isEqualTo(ExecutionResult.snoozed(output, Duration.ofSeconds(300)));
        }

        @Test
        void exit75WithZeroOrThirtyDaysSnoozes() {
            assertThat(RunSignals.fromShellExit(75, "FORGEFLOW_SNOOZE_SECONDS=0").snooze()).isZero();
            assertThat(RunSignals.fromShellExit(75, "FORGEFLOW_SNOOZE_SECONDS=2592000").snooze())
                    .isEqualTo(Duration.ofDays(30));
        }

        @Test
        void exit75WithoutTheLineIsAnOrdinaryFailure() {
            ExecutionResult result = RunSignals.fromShellExit(75, "temporary failure\n");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.permanent()).isFalse();
            assertThat(result.error()).isEqualTo("exit code 75 (to snooze, also print FORGEFLOW_SNOOZE_SECONDS=n, "
                    + "n from 0 to 2592000)");
            assertThat(RunSignals.fromShellExit(75, null).outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(RunSignals.fromShellExit(75, "say FORGEFLOW_SNOOZE_SECONDS=5").outcome())
                    .as("the line must start with the name").isEqualTo(AttemptOutcome.FAILED);
        }

        @ParameterizedTest
        @ValueSource(strings = {"2592001", "-1", "1.5", "soon", "", "99999999999"})
        void exit75WithUnreadableSecondsFailsNamingThem(String seconds) {
            ExecutionResult result = RunSignals.fromShellExit(75, "FORGEFLOW_SNOOZE_SECONDS=" + seconds + "\n");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).isEqualTo("exit code 75 with FORGEFLOW_SNOOZE_SECONDS=" + seconds
                    + ": it must be whole seconds from 0 to 2592000, e.g. FORGEFLOW_SNOOZE_SECONDS=300");
        }

        @Test
        void exit76GivesUpWithThePrintedReasonOrTheCode() {
            assertThat(RunSignals.fromShellExit(76, "FORGEFLOW_GIVE_UP_REASON=old\nFORGEFLOW_GIVE_UP_REASON=order gone\n"))
                    .isEqualTo(ExecutionResult.gaveUp("FORGEFLOW_GIVE_UP_REASON=old\nFORGEFLOW_GIVE_UP_REASON=order gone\n",
                            "order gone"));
            assertThat(RunSignals.fromShellExit(76, "nothing").error()).isEqualTo("gave up: exit code 76");
            assertThat(RunSignals.fromShellExit(76, "FORGEFLOW_GIVE_UP_REASON=  \n").error())
                    .isEqualTo("gave up: exit code 76");
            assertThat(RunSignals.fromShellExit(76, null).outcome()).isEqualTo(AttemptOutcome.GAVE_UP);
        }

        @Test
        void aLongReasonIsClipped() {
            String reason = "x".repeat(RunSignals.MAX_REASON + 1);
            assertThat(RunSignals.fromShellExit(76, "FORGEFLOW_GIVE_UP_REASON=" + reason).error())
                    .isEqualTo("gave up: " + "x".repeat(RunSignals.MAX_REASON) + "...");
            assertThat(RunSignals.fromShellExit(76, "FORGEFLOW_GIVE_UP_REASON=" + "y".repeat(RunSignals.MAX_REASON))
                    .error()).isEqualTo("gave up: " + "y".repeat(RunSignals.MAX_REASON));
        }

        @ParameterizedTest
        @ValueSource(ints = {1, 2, 74, 77, 255})
        void otherExitCodesAreNoSignal(int code) {
            assertThat(RunSignals.fromShellExit(code, "FORGEFLOW_SNOOZE_SECONDS=5")).isNull();
        }
    }

    @Nested
    class Http {
        @Test
        void aSnoozeHeaderSnoozesAndAGiveUpHeaderWins() {
            assertThat(RunSignals.fromHttpHeaders(" 60 ", null, "HTTP 202 Accepted"))
                    .isEqualTo(ExecutionResult.snoozed("HTTP 202 Accepted", Duration.ofSeconds(60)));
            assertThat(RunSignals.fromHttpHeaders("60", " account closed ", "out"))
                    .isEqualTo(ExecutionResult.gaveUp("out", "account closed"));
            assertThat(RunSignals.fromHttpHeaders(null, "", "out").error()).isEqualTo("gave up: no reason given");
        }

        @Test
        void noHeaderIsNoSignal() {
            assertThat(RunSignals.fromHttpHeaders(null, null, "out")).isNull();
        }

        @ParameterizedTest
        @ValueSource(strings = {"2592001", "1.5", "later", ""})
        void anUnreadableSnoozeFailsNamingTheHeader(String value) {
            ExecutionResult result = RunSignals.fromHttpHeaders(value, null, "out");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.permanent()).isFalse();
            assertThat(result.error()).isEqualTo("X-ForgeFlow-Snooze-Seconds: " + value
                    + " must be whole seconds from 0 to 2592000, e.g. X-ForgeFlow-Snooze-Seconds: 300");
        }
    }
}
