package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static io.forgeflow.adapter.executor.Processes.isGone;
import static io.forgeflow.adapter.executor.Processes.pidsIn;
import static io.forgeflow.adapter.executor.Processes.quoted;
import static org.assertj.core.api.Assertions.assertThat;

/** Runs real processes through /bin/sh and setsid, and checks what is left of them in /proc. */
class ShellRunExecutorIT {
    final ShellRunExecutor shell = new ShellRunExecutor(ShellRunExecutor.Settings.defaults()
            .withKillGrace(Duration.ofMillis(500)));
    final ExecutorService background = Executors.newCachedThreadPool();

    @TempDir
    Path dir;

    @AfterEach
    void stopBackground() {
        background.shutdownNow();
    }

    private ExecutionResult run(String command) {
        return shell.execute(anAttempt().withPayload(Map.of("command", command)).build());
    }

    /**
     * A tree of four processes that all record their pids: the shell, a background job, an orphan that a double
     * fork took out of the shell's descendants, and a nested shell that becomes a foreground sleep.
     */
    private String treeRecordingPidsIn(Path pids) {
        String file = quoted(pids);
        return "echo $$ >> " + file + "; "
                + "sleep 600 & echo $! >> " + file + "; "
                + "( sleep 600 & echo $! >> " + file + " ); "
                + "sh -c 'echo $$ >> \"$0\"; exec sleep 600' " + file;
    }

    @Nested
    class SnoozeAndGiveUp {
        @Test
        void exit75WithThePrintedSecondsSnoozesAndExit76GivesUpWithTheReason() {
            ExecutionResult snoozed = run("echo 'input not ready'; echo FORGEFLOW_SNOOZE_SECONDS=120; exit 75");
            ExecutionResult gaveUp = run("echo FORGEFLOW_GIVE_UP_REASON=customer unsubscribed; exit 76");

            assertThat(snoozed.outcome()).isEqualTo(AttemptOutcome.SNOOZED);
            assertThat(snoozed.snooze()).isEqualTo(Duration.ofSeconds(120));
            assertThat(snoozed.output()).isEqualTo("input not ready\nFORGEFLOW_SNOOZE_SECONDS=120\n");
            assertThat(gaveUp.outcome()).isEqualTo(AttemptOutcome.GAVE_UP);
            assertThat(gaveUp.error()).isEqualTo("gave up: customer unsubscribed");
        }

        @Test
        void aListedPermanentExitCodeKeepsItsMeaning() {
            ExecutionResult result = shell.execute(anAttempt().withPayload(Map.of("command",
                    "echo FORGEFLOW_SNOOZE_SECONDS=1; exit 75", "permanent_exit_codes", List.of(75))).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.permanent()).isTrue();
        }
    }

    @Nested
    class PermanentExitCodes {
        ExecutionResult runWith(String command, List<Integer> permanent) {
            return shell.execute(anAttempt().withPayload(Map.of("command", command, "permanent_exit_codes", permanent))
                    .build());
        }

        @Test
        void anExitCodeListedAsPermanentFailsPermanently() {
            ExecutionResult result = runWith("echo bad input; exit 3", List.of(2, 3));

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.permanent()).isTrue();
            assertThat(result.error()).isEqualTo("exit code 3 (permanent: listed in payload.permanent_exit_codes)");
            assertThat(result.output()).isEqualTo("bad input\n");
        }

        @Test
        void anExitCodeNotListedIsRetried() {
            ExecutionResult result = runWith("exit 1", List.of(3));

            assertThat(result).isEqualTo(ExecutionResult.failed("", "exit code 1"));
        }

        @Test
        void withoutTheListNoExitCodeIsPermanent() {
            assertThat(run("exit 3").permanent()).isFalse();
            assertThat(runWith("true", List.of(3)).outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
        }

        @Test
        void aPayloadThatFailsValidationAtRunTimeIsPermanent() {
            ExecutionResult result = runWith("exit 3", List.of(0));

            assertThat(result.permanent()).isTrue();
            assertThat(result.error()).isEqualTo("invalid payload: payload.permanent_exit_codes must be from 1 to 255; "
                    + "got 0");
        }
    }

    @Nested
    class Output {
        @Test
        void capturesStandardOutputAndStandardErrorTogether() {
            ExecutionResult result = run("echo to-out; echo to-err >&2; echo again");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            assertThat(result.output()).isEqualTo("to-out\nto-err\nagain\n");
            assertThat(result.error()).isNull();
        }

        @Test
        void givesTheCommandAClosedStandardInputSoThatReadersDoNotHang() {
            ExecutionResult result = run("cat; read line || echo end-of-input");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            assertThat(result.output()).isEqualTo("end-of-input\n");
        }

        @Test
        void passesTheRunJobAndAttemptInTheEnvironment() {
            ExecutionContext context = anAttempt().withIds("run-42", "job-7", 3)
                    .withPayload(Map.of("command", "echo $FORGEFLOW_RUN_ID $FORGEFLOW_JOB_ID $FORGEFLOW_ATTEMPT")).build();

            assertThat(shell.execute(context).output()).isEqualTo("run-42 job-7 3\n");
        }

        @Test
        void runsTheCommandInItsOwnSessionLedByTheShell() {
            ExecutionResult result = run("ps -o pid= -o sid= -o pgid= -p $$");

            String[] ids = result.output().trim().split("\\s+");
            assertThat(ids).hasSize(3);
            assertThat(ids[1]).as("session id").isEqualTo(ids[0]);
            assertThat(ids[2]).as("process group id").isEqualTo(ids[0]);
        }

        @Test
        void passesNonAsciiCharactersOfTheCommandIntact() {
            // the build runs tests with LANG=C.UTF-8 (root pom); a JVM in another locale cannot pass this
            assertThat(Charset.defaultCharset()).as("run the tests with LANG=C.UTF-8").isEqualTo(StandardCharsets.UTF_8);

            assertThat(run("printf '%s' 'caf\u00e9 \u20ac'").output()).isEqualTo("caf\u00e9 \u20ac");
        }

        @ParameterizedTest(name = "maxOutputBytes {0}")
        @ValueSource(ints = {65536, 65537, 65538, 65539})
        void keepsOnlyTheTailOfAHugeOutputAsValidUtf8AfterATruncationMarker(int maxOutputBytes) {
            String line = "\u00e9\u20ac\ud83d\ude00x\n"; // 2 + 3 + 4 + 1 + 1 bytes
            int lines = 460_000; // 5,060,000 bytes
            String command = "yes \"$(printf '\\303\\251\\342\\202\\254\\360\\237\\230\\200x')\" | head -n " + lines;

            ExecutionResult result = shell.execute(anAttempt().withPayload(Map.of("command", command))
                    .withMaxOutputBytes(maxOutputBytes).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            String output = result.output();
            assertThat(output).matches("(?s)\\[\\.\\.\\. \\d+ bytes truncated \\.\\.\\.\\]\n.*");
            String marker = output.substring(0, output.indexOf('\n') + 1);
            String kept = output.substring(marker.length());
            long truncated = Long.parseLong(marker.replaceAll("\\D", ""));
            long total = (long) lines * line.getBytes(StandardCharsets.UTF_8).length;
            assertThat(truncated + kept.getBytes(StandardCharsets.UTF_8).length).isEqualTo(total);
            assertThat(output.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(maxOutputBytes)
                    .isGreaterThan(maxOutputBytes - 4 - marker.length());
            assertThat(kept).doesNotContain("\ufffd");
            assertThat(line.repeat(kept.length() / line.length() + 2)).endsWith(kept);
        }
    }

    @Nested
    class ExitCodes {
        @Test
        void exitCodeZeroSucceeds() {
            assertThat(run("true").outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
        }

        @Test
        void aNonZeroExitCodeFailsWithTheCodeAsError() {
            ExecutionResult result = run("echo about to fail; exit 3");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).isEqualTo("exit code 3");
            assertThat(result.output()).isEqualTo("about to fail\n");
        }

        @Test
        void anUnknownCommandFailsWithTheShellsCode127AndItsMessage() {
            ExecutionResult result = run("no-such-command-forgeflow");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(result.error()).isEqualTo("exit code 127");
            assertThat(result.output()).contains("no-such-command-forgeflow").contains("not found");
        }
    }

    @Nested
    class Timeout {
        @Test
        void killsTheWholeProcessTreeIncludingOrphans() {
            Path pids = dir.resolve("pids");
            ExecutionContext context = anAttempt().withTimeout(Duration.ofSeconds(1))
                    .withPayload(Map.of("command", "echo started; " + treeRecordingPidsIn(pids))).build();

            ExecutionResult result = shell.execute(context);

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.TIMED_OUT);
            assertThat(result.error()).isEqualTo("timed out after 1s; process tree killed");
            assertThat(result.output()).isEqualTo("started\n");
            assertThat(pidsIn(pids)).hasSize(4).allSatisfy(pid -> assertThat(isGone(pid)).as("pid %d gone", pid).isTrue());
        }

        @Test
        void killsProcessesThatIgnoreSigtermAfterTheGracePeriod() {
            Path pids = dir.resolve("pids");
            String file = quoted(pids);
            ExecutionContext context = anAttempt().withTimeout(Duration.ofMillis(500)).withPayload(Map.of("command",
                    "trap '' TERM; echo $$ >> " + file + "; sleep 600 & echo $! >> " + file + "; wait")).build();

            long start = System.nanoTime();
            ExecutionResult result = shell.execute(context);

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.TIMED_OUT);
            assertThat(result.error()).isEqualTo("timed out after 0.5s; process tree killed");
            // after the timeout and the grace (never before: the clock is monotonic), and nowhere near the 600 s sleep
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("timeout, grace, SIGKILL")
                    .isBetween(Duration.ofMillis(900), Duration.ofSeconds(60));
            assertThat(pidsIn(pids)).hasSize(2).allSatisfy(pid -> assertThat(isGone(pid)).isTrue());
        }
    }

    @Nested
    class Cancelling {
        @Test
        void killsTheWholeProcessTreeWhenTheAttemptIsCancelled() throws Exception {
            Path pids = dir.resolve("pids");
            Cancellation cancellation = new Cancellation();
            ExecutionContext context = anAttempt().withCancellation(cancellation).withTimeout(Duration.ofMinutes(5))
                    .withPayload(Map.of("command", treeRecordingPidsIn(pids))).build();
            CompletableFuture<ExecutionResult> running = CompletableFuture.supplyAsync(() -> shell.execute(context), background);
            Await.until(Duration.ofSeconds(10), "four pids recorded", () -> pidsIn(pids).size() == 4);

            cancellation.cancel("run cancelled by operator");
            ExecutionResult result = running.get(10, TimeUnit.SECONDS);

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(result.error()).isEqualTo("cancelled (run cancelled by operator); process tree killed");
            assertThat(pidsIn(pids)).allSatisfy(pid -> assertThat(isGone(pid)).as("pid %d gone", pid).isTrue());
        }
    }

    @Nested
    class Leftovers {
        @Test
        void aBackgroundProcessTheShellLeavesRunningIsKilledWhenTheShellExits() {
            Path pids = dir.resolve("pids");
            String file = quoted(pids);

            long start = System.nanoTime();
            ExecutionResult result = run("sleep 600 & echo $! >> " + file + "; ( sleep 600 & echo $! >> " + file
                    + " ); echo done");

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            assertThat(result.output()).isEqualTo("done\n");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not waiting for the leftover 600 s sleeps")
                    .isLessThan(Duration.ofSeconds(60));
            List<Long> leftovers = pidsIn(pids);
            assertThat(leftovers).hasSize(2).allSatisfy(pid -> assertThat(isGone(pid)).isTrue());
        }

        @Test
        void manyShortCommandsEachFinishPromptly() {
            List<Duration> took = new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long start = System.nanoTime();
                assertThat(run("echo " + i).output()).isEqualTo(i + "\n");
                took.add(Duration.ofNanos(System.nanoTime() - start));
            }
            took.sort(null);
            // the median, not the sum: a loaded machine slows some forks, a wait for leftovers (the 2 s kill grace)
            // would slow every command past the grace, so the grace is the bound
            assertThat(took.get(took.size() / 2)).as("median of 20 echo commands; each waiting out the 2 s grace "
                    + "would put it above").isLessThan(Duration.ofSeconds(2));
        }
    }
}
