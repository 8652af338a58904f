package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import io.forgeflow.client.Queue;
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
import java.util.HashMap;
import java.util.Map;

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

    @Nested
    class QueueOptions {
        @ParameterizedTest
        @CsvSource({"2, 2", " 7 , 7", "100000, 100000", "0, 0", "-1, -1"})
        void maxRunningIsAWholeNumberAndTheServerChecksItsRange(String text, int expected) {
            assertThat(QueuesCommand.maxRunning(text)).isEqualTo(expected);
        }

        @ParameterizedTest
        @CsvSource({"none", "NONE", " None "})
        void noneClearsALimit(String text) {
            assertThat(QueuesCommand.maxRunning(text)).isNull();
            assertThat(QueuesCommand.rate(text)).isNull();
        }

        @ParameterizedTest
        @CsvSource({"two", "2.5", "''", "99999999999", "2 runs"})
        void anythingElseIsAUsageErrorForMaxRunning(String text) {
            assertThatThrownBy(() -> QueuesCommand.maxRunning(text)).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--max-running").hasMessageContaining("none");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {"100/60 | 100 | 60", " 5 / 1 | 5 | 1", "1000000/86400 | 1000000 | 86400"})
        void rateIsCountSlashSeconds(String text, int count, int seconds) {
            assertThat(QueuesCommand.rate(text)).containsExactly(count, seconds);
        }

        @ParameterizedTest
        @CsvSource({"100", "100/", "/60", "100/60s", "100 per 60", "1.5/60", "-1/60", "1/2/3", "9999999999/1"})
        void aMalformedRateIsAUsageErrorWithAnExample(String text) {
            assertThatThrownBy(() -> QueuesCommand.rate(text)).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--rate '" + text + "' is not COUNT/SECONDS").hasMessageContaining("100/60");
        }

        @Test
        void setSendsOnlyTheLimitsGiven() {
            assertThat(QueuesCommand.update("2", null).body()).isEqualTo(Map.of("max_running", 2));
            assertThat(QueuesCommand.update(null, "100/60").body())
                    .isEqualTo(Map.of("rate_limit", Map.of("count", 100, "per_seconds", 60)));
            Map<String, Object> cleared = new HashMap<>();
            cleared.put("max_running", null);
            cleared.put("rate_limit", null);
            assertThat(QueuesCommand.update("none", "none").body()).isEqualTo(cleared);
        }

        @Test
        void setWithoutALimitIsAUsageError() {
            assertThatThrownBy(() -> QueuesCommand.update(null, null)).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--max-running").hasMessageContaining("--rate");
        }

        @Test
        void limitsAndLagReadNaturally() {
            assertThat(QueuesCommand.rateText(new Queue.RateLimit(100, 60))).isEqualTo("100/60s");
            assertThat(QueuesCommand.rateText(null)).isEqualTo("-");
            assertThat(QueuesCommand.lag(12.34)).isEqualTo("12.3s");
            assertThat(QueuesCommand.lag(0)).isEqualTo("0ms");
        }

        @Test
        void aJobsConcurrencyLimitIsDescribedWithItsKey() {
            Job plain = new Job("j", "n", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active", null,
                    Instant.EPOCH, Instant.EPOCH);
            Job own = new Job("j", "n", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active", null,
                    Instant.EPOCH, Instant.EPOCH, "default", null, 1, "allow");
            Job shared = new Job("j", "n", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active", null,
                    Instant.EPOCH, Instant.EPOCH, "billing", "ledger", 2, "skip");

            assertThat(Details.concurrency(plain)).isNull();
            assertThat(Details.concurrency(own)).isEqualTo("at most 1 run(s) of this job at once");
            assertThat(Details.concurrency(shared)).isEqualTo("at most 2 run(s) at once sharing key ledger");
        }
    }

    @Test
    void aRunOrJobThatWaitsSaysWhatFor() {
        Run waiting = new Run("r", "j", "pending", 0, 3, 5, Instant.EPOCH, null, null, null, null, "", null, null,
                "handler send-receipt");
        Run plain = new Run("r", "j", "pending", 0, 3, 5, Instant.EPOCH, null, null, null, null, "", null, null);
        assertThat(RunsCommand.status(waiting)).isEqualTo("pending (waiting for handler send-receipt)");
        assertThat(RunsCommand.status(plain)).isEqualTo("pending");

        assertThat(printed(out -> Details.run(out, waiting, "receipts")))
                .containsPattern("(?m)^waiting for +handler send-receipt$");
        assertThat(printed(out -> Details.run(out, plain, "receipts"))).containsPattern("(?m)^waiting for +-$");

        Job job = new Job("j", "receipts", "java", Map.of("handler", "send-receipt"), null, null, "UTC", 5, 3, 300,
                "skip", null, "active", null, Instant.EPOCH, Instant.EPOCH, "default", null, null, "allow",
                "handler send-receipt");
        assertThat(printed(out -> Details.job(out, job))).containsPattern("(?m)^waiting for +handler send-receipt$");
    }

    /** jobs show: how many dead runs in a row a job with pause_after_failures has so far (dead_streak). */
    @Test
    void aJobThatPausesAfterFailuresShowsItsDeadRunsInARowSoFar() {
        Job job = new Job("j", "flaky", "shell", Map.of(), "*/5 * * * *", null, "UTC", 5, 3, 300, "skip", null,
                "active", null, Instant.EPOCH, Instant.EPOCH, "default", null, null, "allow", null, null, Map.of(),
                null, java.util.List.of(), null, null, null, null, null, null, null, 0, 3, 0, null, null, null, null,
                null, 2);

        assertThat(printed(out -> Details.job(out, job)))
                .containsPattern("(?m)^pause after +3 dead run\\(s\\) in a row \\(now 2 of 3 dead in a row\\)$");
    }

    @Test
    void aRunThatSnoozedSaysHowOftenAndItsAttemptsShowTheirOutcome() {
        Run snoozed = new Run("r", "j", "succeeded", 2, 4, 5, Instant.EPOCH, null, null, null, null, "", null,
                java.util.List.of(new io.forgeflow.client.Attempt(1, "w1", Instant.EPOCH, Instant.EPOCH, "snoozed",
                        "snoozed for 60s")), null, null, Map.of(), null, null, 1);
        Run plain = new Run("r", "j", "pending", 0, 3, 5, Instant.EPOCH, null, null, null, null, "", null, null);

        String shown = printed(out -> Details.run(out, snoozed, "sync"));
        assertThat(shown).containsPattern("(?m)^snoozes +1 \\(came back later without spending an attempt\\)$");
        assertThat(shown).containsPattern("(?m)^ +1 +snoozed +w1 .*snoozed for 60s$");
        assertThat(printed(out -> Details.run(out, plain, "sync"))).doesNotContain("snoozes");
    }

    @Test
    void aJobInASequenceSaysWhichAndWhatADeadRunDoes() {
        Job blocking = new Job("j", "paid", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active",
                null, Instant.EPOCH, Instant.EPOCH, "default", null, null, "allow", null, null, Map.of(), null,
                java.util.List.of(), null, null, null, null, "order-42", "block");
        Job goingOn = new Job("j", "paid", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active",
                null, Instant.EPOCH, Instant.EPOCH, "default", null, null, "allow", null, null, Map.of(), null,
                java.util.List.of(), null, null, null, null, "order-42", "continue");

        assertThat(printed(out -> Details.job(out, blocking))).containsPattern("(?m)^sequence +order-42 \\(a dead run blocks it\\)$");
        assertThat(printed(out -> Details.job(out, goingOn))).containsPattern("(?m)^sequence +order-42 \\(a dead run lets it go on\\)$");
    }

    @Test
    void aJobsDebounceAndThrottleAreDescribed() {
        Job trailing = flowJob(new io.forgeflow.client.Debounce("user-42", 30, 300, "trailing"),
                new io.forgeflow.client.Throttle("partner:7", 5, 2));
        Job leading = flowJob(new io.forgeflow.client.Debounce("user-43", 10, null, "leading"), null);

        String shown = printed(out -> Details.job(out, trailing));
        assertThat(shown).containsPattern("(?m)^debounce +user-42: trailing, 30s after the last submission, at most "
                + "300s after the first$");
        assertThat(shown).containsPattern("(?m)^throttle +partner:7: at most 5 start\\(s\\) per 2s$");
        assertThat(printed(out -> Details.job(out, leading))).containsPattern("(?m)^debounce +user-43: leading, the "
                + "first runs at once, others within 10s join it$").containsPattern("(?m)^throttle +-$");
    }

    static Job flowJob(io.forgeflow.client.Debounce debounce, io.forgeflow.client.Throttle throttle) {
        return new Job("j", "sync", "shell", Map.of(), null, null, "UTC", 5, 3, 300, "skip", null, "active",
                null, Instant.EPOCH, Instant.EPOCH, "default", null, null, "allow", null, null, Map.of(), null,
                java.util.List.of(), null, null, null, null, null, null, null, 0, null, 0, null, null, null, null, null,
                debounce, throttle);
    }

    static String printed(java.util.function.Consumer<ClientCommand.Output> print) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stream = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        print.accept(new ClientCommand.Output(new Terminal(stream, stream, Map.of()), false));
        return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
}
