package io.forgeflow.server.cli;

import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import net.sourceforge.argparse4j.ArgumentParsers;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the command line prints and how it exits, without a server. */
class CommandLineOutputTest {

    @Nested
    class ExitCodesOfFailures {
        @ParameterizedTest
        @CsvSource({"404, 3", "409, 4", "400, 1", "401, 1", "403, 1", "422, 1", "500, 1"})
        void anApiErrorExitsByItsStatus(int status, int code) {
            assertThat(ExitCodes.of(new ForgeFlowApiException(status, "x", null))).isEqualTo(code);
        }

        @Test
        void usageErrorsExit2AndEverythingElse1() {
            assertThat(ExitCodes.of(new ArgumentParserException("bad", ArgumentParsers.newFor("x").build()))).isEqualTo(2);
            assertThat(ExitCodes.of(new UsageException("bad"))).isEqualTo(2);
            assertThat(ExitCodes.of(new ForgeFlowUnavailableException("http://h", new IOException("refused")))).isEqualTo(1);
            assertThat(ExitCodes.of(new IllegalStateException())).isEqualTo(1);
            assertThat(ExitCodes.of(new ReportedFailure(3))).isEqualTo(3);
        }
    }

    @Nested
    class TerminalSafety {
        @Test
        void controlCharactersAndEscapeSequencesAreShownAsQuestionMarks() {
            assertThat(Text.safe("a\u001b[31mred\u0007\u009b\u007f")).isEqualTo("a?[31mred???");
            assertThat(Text.safe("line 1\r\nline 2\tend")).isEqualTo("line 1\nline 2\tend");
            assertThat(Text.safe("abc\u202Edcb")).isEqualTo("abc?dcb");
            assertThat(Text.line("a\nb\tc")).isEqualTo("a b c");
            assertThat(Text.safe("naïve 日本 🚀")).isEqualTo("naïve 日本 🚀");
        }

        @Test
        void longCellsAreCutWithAnEllipsis() {
            assertThat(Text.cut("abcdef", 4)).isEqualTo("abc…");
            assertThat(Text.cut("abcd", 4)).isEqualTo("abcd");
            assertThat(Text.cut("🚀🚀🚀🚀🚀", 3)).isEqualTo("🚀🚀…");
        }
    }

    @Test
    void aTableAlignsColumnsAndRightAlignsNumbers() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new Table("NAME", "RUNS>", "NOTE").row("pending", 1, null).row("succeeded", 1234, null)
                .print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
                "NAME       RUNS  NOTE\n" + "pending       1  -\n" + "succeeded  1234  -\n");
    }

    @Test
    void aTableRowMustFillEveryColumn() {
        assertThatThrownBy(() -> new Table("A", "B").row("only one")).isInstanceOf(IllegalArgumentException.class);
    }

    @Nested
    class RunAt {
        final Instant now = Instant.parse("2026-07-01T09:30:00Z");

        @ParameterizedTest
        @CsvSource({"+30s, 2026-07-01T09:30:30Z", "+10m, 2026-07-01T09:40:00Z", "+2h, 2026-07-01T11:30:00Z",
                "+1d, 2026-07-02T09:30:00Z", "2026-12-01T09:30:00Z, 2026-12-01T09:30:00Z",
                "2026-12-01T10:30:00+01:00, 2026-12-01T09:30:00Z"})
        void isATimestampOrAnOffsetFromNow(String text, String expected) {
            assertThat(JobsCommand.runAt(text, now)).isEqualTo(Instant.parse(expected));
        }

        @Test
        void anythingElseIsAUsageError() {
            assertThatThrownBy(() -> JobsCommand.runAt("tomorrow", now)).isInstanceOf(UsageException.class)
                    .hasMessageContaining("2026-12-01T09:30:00Z");
            assertThatThrownBy(() -> JobsCommand.runAt("+99999999999999999999d", now)).isInstanceOf(UsageException.class);
            assertThat(JobsCommand.runAt(null, now)).isNull();
        }
    }

    @Test
    void durationsReadNaturally() {
        assertThat(Text.duration(Duration.ofMillis(850))).isEqualTo("850ms");
        assertThat(Text.duration(Duration.ofMillis(12_500))).isEqualTo("12.5s");
        assertThat(Text.duration(Duration.ofSeconds(185))).isEqualTo("3m05s");
        assertThat(Text.duration(Duration.ofMinutes(130))).isEqualTo("2h10m");
    }
}
