package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static io.forgeflow.adapter.executor.Processes.quoted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Jobs whose processes leave the job's process group or session (GNU timeout, setsid, a double fork, set -m): every
 * one of them is gone within 5 s of the run's end, cancel or timeout, and of the worker's JVM being killed or frozen.
 * Runs with the containment this machine allows ({@code -Dforgeflow.test.containment=process-group} runs the same
 * tests on the process group alone, to see them fail).
 */
class ContainmentIT {
    static final String MODE = System.getProperty("forgeflow.test.containment", "detected");
    static ShellRunExecutor.Settings settings;

    final ExecutorService background = Executors.newCachedThreadPool();
    final List<Process> children = new ArrayList<>();
    final String marker = Marked.marker();

    @TempDir
    Path dir;

    @BeforeAll
    static void detect() {
        ShellRunExecutor.Settings base = ShellRunExecutor.Settings.defaults().withKillGrace(Duration.ofMillis(500));
        settings = MODE.equals("detected") ? base.detected(null) : base;
    }

    @AfterEach
    void cleanUp() {
        background.shutdownNow();
        for (Process child : children) {
            child.destroyForcibly();
        }
        Marked.live(marker).forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    /** The ways a job's process leaves its group or session; each touches {@code ready} once it runs. */
    enum Escape {
        TIMEOUT("timeout 60 sh -c 'touch \"$0\"; exec sleep 60 %2$s' %1$s &"),
        SETSID("setsid sh -c 'touch \"$0\"; exec sleep 60 %2$s' %1$s &"),
        DOUBLE_FORK("sh -c '(sh -c \"touch $0; exec sleep 60 %2$s\" &) &' %1$s"),
        JOB_CONTROL("bash -c 'set -m; (touch \"$0\"; exec sleep 60 %2$s) &' %1$s");

        final String template;

        Escape(String template) {
            this.template = template;
        }

        /** Starts the escapee, waits until it runs, says {@code ready}, then runs {@code tail}. */
        String command(Path ready, String marker, String tail) {
            return String.format(template, quoted(ready), marker) + "\n"
                    + "while [ ! -e " + quoted(ready) + " ]; do sleep 0.05; done; echo ready; " + tail;
        }
    }

    private ShellRunExecutor shell() {
        return new ShellRunExecutor(settings);
    }

    private void awaitAllGone(String when) {
        Await.until(Duration.ofSeconds(5), "every process marked " + marker + " gone " + when + " (containment "
                + settings.isolation().containment().label() + "; left: " + Marked.live(marker) + ")",
                () -> Marked.live(marker).isEmpty());
    }

    @Test
    void thisMachineAllowsAPidNamespace() {
        // the build machines run as root: a node there must choose the strongest containment
        org.junit.jupiter.api.Assumptions.assumeTrue(MODE.equals("detected") && JobIsolation.effectiveUid() == 0,
                "a non-root developer's machine may forbid user namespaces; CI runs as root, where this must hold");
        assertThat(settings.isolation().containment()).isEqualTo(Containment.PID_NAMESPACE);
    }

    @Nested
    class WhenTheRunEnds {
        @ParameterizedTest
        @EnumSource(Escape.class)
        void normally(Escape escape) {
            ExecutionResult result = shell().execute(anAttempt().withPayload(Map.of("command",
                    escape.command(dir.resolve("ready"), marker, "echo done"))).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
            assertThat(result.output()).isEqualTo("ready\ndone\n");
            awaitAllGone("after the shell exited");
        }

        @ParameterizedTest
        @EnumSource(Escape.class)
        void byTimeout(Escape escape) {
            ExecutionResult result = shell().execute(anAttempt().withTimeout(Duration.ofSeconds(2))
                    .withPayload(Map.of("command", escape.command(dir.resolve("ready"), marker, "sleep 60"))).build());

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.TIMED_OUT);
            assertThat(result.output()).isEqualTo("ready\n");
            awaitAllGone("after the timeout");
        }

        @ParameterizedTest
        @EnumSource(Escape.class)
        void byCancel(Escape escape) throws Exception {
            Cancellation cancellation = new Cancellation();
            ExecutionContext context = anAttempt().withCancellation(cancellation).withTimeout(Duration.ofMinutes(5))
                    .withPayload(Map.of("command", escape.command(dir.resolve("ready"), marker, "sleep 60"))).build();
            CompletableFuture<ExecutionResult> running = CompletableFuture.supplyAsync(() -> shell().execute(context),
                    background);
            Await.until(Duration.ofSeconds(10), "the escapee running", () -> !Marked.live(marker).isEmpty()
                    && Files.exists(dir.resolve("ready")));

            cancellation.cancel("run cancelled by operator");
            ExecutionResult result = running.get(10, TimeUnit.SECONDS);

            assertThat(result.outcome()).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(result.error()).isEqualTo("cancelled (run cancelled by operator); process tree killed");
            awaitAllGone("after the cancel");
        }
    }

    @Nested
    class WhenTheWorkerDies {
        /** A JVM that runs one attempt of {@code command}; returns once the escapee runs. */
        Process worker(Escape escape, Duration silence) throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    ShellJobProcess.class.getName(), MODE, Long.toString(silence.toMillis()),
                    escape.command(dir.resolve("ready"), marker, "sleep 60"))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("worker.log").toFile()).start();
            children.add(child);
            Await.until(Duration.ofSeconds(30), "the escapee running (worker log: " + dir.resolve("worker.log") + ")",
                    () -> Files.exists(dir.resolve("ready")) && !Marked.live(marker).isEmpty());
            Await.until(Duration.ofSeconds(30), "the attempt's supervisor started", () -> child.descendants()
                    .anyMatch(p -> p.info().arguments().map(a -> List.of(a).contains("forgeflow-supervisor"))
                            .orElse(false)));
            return child;
        }

        @ParameterizedTest
        @EnumSource(Escape.class)
        void killedWithSigkill(Escape escape) throws Exception {
            Process worker = worker(escape, Duration.ofSeconds(60));

            worker.destroyForcibly(); // SIGKILL
            worker.waitFor(10, TimeUnit.SECONDS);

            awaitAllGone("within 5 s of kill -9 of the worker");
        }

        @ParameterizedTest
        @EnumSource(Escape.class)
        void frozenPastTheSupervisorsSilence(Escape escape) throws Exception {
            Process worker = worker(escape, Duration.ofMillis(1500));

            new ProcessBuilder("kill", "-STOP", Long.toString(worker.pid())).start().waitFor();
            try {
                // silence 1.5 s, then SIGTERM and a second of grace: 5 s more is the promise
                Await.until(Duration.ofMillis(1500 + 1000 + 5000), "every marked process gone while the worker is "
                        + "frozen (left: " + Marked.live(marker) + ")", () -> Marked.live(marker).isEmpty());
            } finally {
                new ProcessBuilder("kill", "-CONT", Long.toString(worker.pid())).start().waitFor();
            }
        }
    }

    /** What the existing shell executor tests check, in the chosen containment. */
    @Nested
    class AsBefore {
        ExecutionResult run(String command) {
            return shell().execute(anAttempt().withPayload(Map.of("command", command)).build());
        }

        @Test
        void outputExitCodesAndInput() {
            assertThat(run("echo to-out; echo to-err >&2; echo again").output()).isEqualTo("to-out\nto-err\nagain\n");
            assertThat(run("echo about to fail; exit 3")).isEqualTo(ExecutionResult.failed("about to fail\n",
                    "exit code 3"));
            ExecutionResult unknown = run("no-such-command-forgeflow");
            assertThat(unknown.error()).isEqualTo("exit code 127");
            assertThat(unknown.output()).contains("no-such-command-forgeflow").contains("not found");
            assertThat(run("cat; read line || echo end-of-input").output()).isEqualTo("end-of-input\n");
            assertThat(run("kill -s KILL $$").error()).isEqualTo("exit code 137");
        }

        @Test
        void theShellLeadsItsOwnSession() {
            String[] ids = run("ps -o pid= -o sid= -o pgid= -p $$").output().trim().split("\\s+");

            assertThat(ids).hasSize(3);
            assertThat(ids[1]).isEqualTo(ids[0]);
            assertThat(ids[2]).isEqualTo(ids[0]);
        }

        @Test
        void processesThatIgnoreSigtermAreKilledAfterTheGrace() {
            long start = System.nanoTime();
            ExecutionResult result = shell().execute(anAttempt().withTimeout(Duration.ofMillis(500)).withPayload(Map.of(
                    "command", "trap '' TERM; sleep 600 " + marker + " & wait")).build());

            assertThat(result.error()).isEqualTo("timed out after 0.5s; process tree killed");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(900),
                    Duration.ofSeconds(5));
            awaitAllGone("after the timeout");
        }

        @Test
        void leftoversGetSigtermFirstAndTheRunEndsPromptly() {
            Path trapped = dir.resolve("trapped");
            long start = System.nanoTime();
            ExecutionResult result = run("sh -c 'trap \"echo term > " + trapped + "; exit 0\" TERM; sleep 600 "
                    + marker + " & wait' & sleep 0.3; echo done");

            assertThat(result.output()).isEqualTo("done\n");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            awaitAllGone("after the shell exited");
            assertThat(trapped).exists();
        }

        @Test
        void manyShortCommandsEachFinishPromptly() {
            List<Duration> took = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long start = System.nanoTime();
                assertThat(run("echo " + i).output()).isEqualTo(i + "\n");
                took.add(Duration.ofNanos(System.nanoTime() - start));
            }
            took.sort(null);
            assertThat(took.get(took.size() / 2)).isLessThan(Duration.ofSeconds(1));
        }
    }

    /** FORGEFLOW_JOB_USER: the job runs as that user, contained and captured as before. */
    @Nested
    class AsAJobUser {
        @Test
        void jobsRunAsTheJobUserWithOutputExitCodesAndContainmentUnchanged() {
            org.junit.jupiter.api.Assumptions.assumeTrue(JobIsolation.effectiveUid() == 0, "needs root");
            ShellRunExecutor asNobody = new ShellRunExecutor(ShellRunExecutor.Settings.defaults()
                    .withKillGrace(Duration.ofMillis(500)).detected("nobody"));
            assertThat(asNobody.jobUser()).isEqualTo("nobody");

            ExecutionResult who = asNobody.execute(anAttempt().withPayload(Map.of("command",
                    "id -un; echo err >&2; exit 3")).build());
            assertThat(who).isEqualTo(ExecutionResult.failed("nobody\nerr\n", "exit code 3"));

            ExecutionResult timedOut = asNobody.execute(anAttempt().withTimeout(Duration.ofSeconds(1))
                    .withPayload(Map.of("command", "setsid sh -c 'sleep 60 " + marker + "' & sleep 60 " + marker))
                    .build());
            assertThat(timedOut.outcome()).isEqualTo(AttemptOutcome.TIMED_OUT);
            awaitAllGone("after the job user's timeout");
        }

        @Test
        void anUnknownJobUserIsAClearError() {
            org.junit.jupiter.api.Assumptions.assumeTrue(JobIsolation.effectiveUid() == 0, "needs root");
            assertThatThrownBy(() -> ShellRunExecutor.Settings.defaults().detected("no-such-user-ff37"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("FORGEFLOW_JOB_USER=no-such-user-ff37 is not a user of this machine");
        }
    }
}
