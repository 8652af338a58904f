package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.execution.ExecutorSettings;
import io.forgeflow.domain.port.ConfigurableRunExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs {@code {"command": "..."}} with {@code /bin/sh -c}; success is exit code 0. Exit code 75 with a line
 * {@code FORGEFLOW_SNOOZE_SECONDS=n} snoozes the run, 76 gives up ({@link RunSignals}).
 *
 * <h2>Process tree</h2>
 * The shell is started as {@code setsid --wait /bin/sh -c <command>} (util-linux), so it leads a new session and
 * process group and every process it starts (pipelines, {@code &} jobs, double-forked orphans) can be found and
 * killed, see {@link ProcessTree}. On timeout or cancellation the whole tree gets SIGTERM, then SIGKILL after
 * {@link Settings#killGrace()} (2 s by default). When the shell exits by itself, anything it left running in its
 * session is killed the same way: a run leaves no process behind, as systemd's {@code KillMode=control-group}.
 * With {@link Containment#PROCESS_GROUP} a process that calls {@code setsid} itself escapes the session and is not
 * killed (a PID namespace, below, holds it). Without a {@code setsid}
 * binary the shell runs in the worker's session and only its descendants are killed (a warning is logged once).
 * Each attempt also gets a {@link JobSupervisor} outside the worker: it kills the attempt's process group when the
 * worker's JVM dies, or stops feeding it for the {@linkplain ExecutorSettings#supervisorSilence() silence} (frozen).
 *
 * <h2>Containment</h2>
 * A node ({@link #configure}) chooses the strongest {@link Containment} the machine allows ({@link JobIsolation}).
 * With {@link Containment#PID_NAMESPACE} the shell runs in a PID namespace of its own, under a small init
 * ({@link #NAMESPACE_INIT}) whose death makes the kernel kill every process of the namespace, whatever session or
 * group it moved to: the supervisor's group kill, the worker's death ({@code setpriv --pdeathsig KILL} as root) and
 * the executor's SIGKILL all end in it. Output, exit codes, timeout and cancellation are as above; the job sees a
 * fresh {@code /proc} with its own processes only (not the node's environment). With a job user the shell runs as
 * that OS user ({@code setpriv --reuid --regid --init-groups}).
 *
 * <h2>Input, output, environment</h2>
 * Standard input is a pipe closed at once (reads see end of file). Standard output and error are merged and read
 * by one thread per attempt into a {@link TailBuffer} of {@code maxOutputBytes}: only the tail is kept, never the
 * whole output, cut on a UTF-8 boundary after a first line {@code [... N bytes truncated ...]}. The environment is
 * an allow-list of the worker's ({@link JobEnvironment}: PATH, HOME, locale, and what {@code FORGEFLOW_SHELL_ENV}
 * names) plus {@code FORGEFLOW_RUN_ID}, {@code FORGEFLOW_JOB_ID} and {@code FORGEFLOW_ATTEMPT}; the working
 * directory is the worker's. The command is never logged (it may hold secrets). The JDK passes arguments in the
 * default charset, so a worker whose charset is not UTF-8 refuses (FAILED) commands it cannot encode rather than
 * run them with {@code ?} in place of those characters.
 *
 * <p>Thread-safe and stateless between attempts; {@link #close()} has nothing to free.
 */
public final class ShellRunExecutor implements ConfigurableRunExecutor {
    private static final Logger log = LoggerFactory.getLogger(ShellRunExecutor.class);
    private static final String COMMAND = "command";
    private static final String PERMANENT_EXIT_CODES = "permanent_exit_codes";
    private static final Set<String> KEYS = Set.of(COMMAND, PERMANENT_EXIT_CODES);
    /** Linux refuses a single exec argument longer than this (MAX_ARG_STRLEN, terminating NUL included). */
    private static final int MAX_COMMAND_BYTES = 128 * 1024 - 1;
    /** How often the waiting thread looks at the process when nothing wakes it (the reader does at end of output). */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The longest timeout honoured; longer ones (beyond the API's 86400 s) are clamped to keep nanoTime arithmetic safe. */
    private static final Duration MAX_TIMEOUT = Duration.ofDays(365);

    /** Replaced once by {@link #configure} when the executor was created without settings (it then detects them). */
    private volatile Settings settings;
    private final boolean detectOnConfigure;
    /** Kills an attempt's tree when this JVM dies or freezes (see {@link JobSupervisor}). */
    private volatile JobSupervisor supervisor;

    /** Runs {@code /bin/sh} through the {@code setsid} found in /usr/bin or /bin, with a 2 s kill grace. */
    public ShellRunExecutor() {
        this(Settings.defaults(), true);
    }

    /** Runs with exactly these settings: {@link #configure} keeps their {@link JobIsolation}. */
    public ShellRunExecutor(Settings settings) {
        this(settings, false);
    }

    private ShellRunExecutor(Settings settings, boolean detectOnConfigure) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.detectOnConfigure = detectOnConfigure;
        this.supervisor = new JobSupervisor(ExecutorSettings.DEFAULT_SUPERVISOR_SILENCE, settings.setsid(),
                settings.shell());
        if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset())) {
            log.warn("default charset is {}, not UTF-8: shell commands it cannot encode will fail to start; "
                    + "run the worker with -Dfile.encoding=UTF-8 (or LANG=C.UTF-8)", Charset.defaultCharset());
        }
        if (settings.setsid() == null) {
            log.warn("no setsid binary: shell runs share the worker's session, and on timeout only the shell's "
                    + "descendants are killed (orphaned background processes survive)");
        }
    }

    /**
     * How shell attempts are started and stopped.
     *
     * @param shell     the shell run with {@code -c}; {@code /bin/sh} by default
     * @param setsid    util-linux {@code setsid}, or null to run the shell in the worker's own session
     * @param killGrace how long the tree has between SIGTERM and SIGKILL; 2 s by default
     * @param isolation the containment and OS user of the jobs; a process group and the node's user by default
     */
    public record Settings(Path shell, Path setsid, Duration killGrace, JobIsolation isolation) {
        public Settings {
            Objects.requireNonNull(shell, "shell");
            Objects.requireNonNull(killGrace, "killGrace");
            Objects.requireNonNull(isolation, "isolation");
            if (isolation.containment() == Containment.PID_NAMESPACE && setsid == null) {
                throw new IllegalArgumentException("a PID namespace needs setsid (the supervisor kills its group)");
            }
            if (killGrace.isNegative()) {
                throw new IllegalArgumentException("killGrace must not be negative, was " + killGrace);
            }
        }

        public static Settings defaults() {
            Path setsid = Stream.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid"))
                    .filter(Files::isExecutable).findFirst().orElse(null);
            return new Settings(Path.of("/bin/sh"), setsid, Duration.ofSeconds(2));
        }

        /** A process group ({@link JobIsolation#processGroup}), the node's user. */
        public Settings(Path shell, Path setsid, Duration killGrace) {
            this(shell, setsid, killGrace, JobIsolation.processGroup(setsid));
        }

        public Settings withKillGrace(Duration grace) {
            return new Settings(shell, setsid, grace, isolation);
        }

        public Settings withShell(Path otherShell) {
            return new Settings(otherShell, setsid, killGrace, isolation);
        }

        public Settings withIsolation(JobIsolation otherIsolation) {
            return new Settings(shell, setsid, killGrace, otherIsolation);
        }

        /** The strongest containment this machine allows, jobs run as {@code jobUser} (null: the node's user). */
        public Settings detected(String jobUser) {
            return withIsolation(JobIsolation.detect(setsid, shell, jobUser));
        }
    }

    @Override
    public String name() {
        return "shell";
    }

    /** How this executor contains its jobs' processes. */
    public Containment containment() {
        return settings.isolation().containment();
    }

    /** The OS user jobs run as, or null: the node's own. */
    public String jobUser() {
        return settings.isolation().jobUser();
    }

    /**
     * Takes the node's supervisor silence (derived from its lease and heartbeat) and, when created without settings,
     * chooses the strongest containment this machine allows and the node's job user ({@link JobIsolation#detect}).
     */
    @Override
    public void configure(ExecutorSettings executorSettings) {
        if (detectOnConfigure) {
            settings = settings.detected(executorSettings.jobUser());
        }
        supervisor = new JobSupervisor(executorSettings.supervisorSilence(), settings.setsid(), settings.shell());
    }

    /** Requires {@code command}: a non-blank string without NUL characters, at most 128 KiB in UTF-8. */
    @Override
    public void validate(Map<String, Object> payload) {
        commandOf(payload);
        permanentExitCodes(payload);
    }

    private static String commandOf(Map<String, Object> payload) {
        PayloadReader reader = new PayloadReader("shell", payload, KEYS);
        String command = reader.requiredString(COMMAND, "\"./backup.sh --full\"");
        if (command.indexOf('\0') >= 0) {
            throw new ValidationException(PayloadReader.field(COMMAND),
                    "payload.command must not contain NUL characters");
        }
        if (command.getBytes(StandardCharsets.UTF_8).length > MAX_COMMAND_BYTES) {
            throw new ValidationException(PayloadReader.field(COMMAND), "payload.command must be at most "
                    + MAX_COMMAND_BYTES + " bytes; put a longer script in a file and run that");
        }
        return command;
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        String command;
        Set<Integer> permanentExitCodes;
        try {
            command = commandOf(context.payload());
            permanentExitCodes = permanentExitCodes(context.payload());
        } catch (ValidationException e) {
            return ExecutionResult.failedPermanently("", "invalid payload: " + e.getMessage());
        }
        if (context.cancellation().isCancelled()) {
            return ExecutionResult.cancelled("", "cancelled (" + context.cancellation().reason() + ") before it started");
        }
        if (context.timeout().isZero() || context.timeout().isNegative()) {
            return ExecutionResult.timedOut("", "timed out after " + DurationText.seconds(context.timeout())
                    + "; the command was not started");
        }
        if (!Charset.defaultCharset().newEncoder().canEncode(command)) {
            // the JDK encodes arguments with the default charset: unencodable characters would become '?', a glob
            return ExecutionResult.failed("", "could not start the command: it has characters the worker's charset "
                    + Charset.defaultCharset() + " cannot pass to a process; start the worker with "
                    + "-Dfile.encoding=UTF-8 (or LANG=C.UTF-8)");
        }
        if (!Files.isExecutable(settings.shell())) {
            return ExecutionResult.failed("", "could not start the command: " + settings.shell()
                    + " does not exist or is not executable");
        }
        Settings settings = this.settings;
        Process process;
        try {
            process = processBuilder(settings, command, context).start();
        } catch (IOException | RuntimeException e) {
            return ExecutionResult.failed("", "could not start the command: " + e.getMessage());
        }
        log.debug("run {} attempt {}: shell started as pid {}", context.runId(), context.attempt(), process.pid());
        boolean namespace = settings.isolation().containment() == Containment.PID_NAMESPACE;
        // in a PID namespace every process of the job descends from the started process (orphans go to its init)
        ProcessTree tree = new ProcessTree(process.toHandle(), settings.setsid() != null && !namespace);
        JobSupervisor.Watch watch = settings.setsid() != null ? supervisor.watch(process.pid()) : null;
        try {
            return supervise(settings, process, tree, context, permanentExitCodes);
        } catch (RuntimeException e) {
            tree.kill(Duration.ZERO);
            log.error("run {} attempt {}: shell supervision failed", context.runId(), context.attempt(), e);
            return ExecutionResult.failed("", "internal error while running the command: " + e);
        } finally {
            if (watch != null) {
                watch.release(); // the tree is dead by now
            }
        }
    }

    /**
     * The first process of a job's PID namespace: runs {@code $2...} (the job's shell, in a session of its own) in the
     * background, waits for it, gives what it left running SIGTERM and {@code $1} ticks of 50 ms to exit, and exits
     * with the shell's status; the kernel then kills whatever is left in the namespace. As a namespace's init it
     * ignores the signals it has no handler for, so the executor's SIGTERM reaches the job's processes only.
     */
    static final String NAMESPACE_INIT = "g=$1; shift\n"
            + "exec 3>&2 2>/dev/null\n" // its own messages ("Terminated") are not the job's output
            + "\"$@\" <&0 2>&3 3>&- &\n"
            + "c=$!\n"
            + "while :; do wait \"$c\"; s=$?; kill -s 0 \"$c\" 2>/dev/null || break; done\n"
            + "if kill -s 0 -- -1 2>/dev/null; then\n"
            + "  kill -s TERM -- -1 2>/dev/null; n=0\n"
            + "  while [ \"$n\" -lt \"$g\" ] && kill -s 0 -- -1 2>/dev/null; do sleep 0.05; n=$((n+1)); done\n"
            + "fi\n"
            + "exit \"$s\"\n";

    private static ProcessBuilder processBuilder(Settings settings, String command, ExecutionContext context) {
        List<String> argv = new ArrayList<>();
        JobIsolation isolation = settings.isolation();
        if (settings.setsid() != null) {
            argv.add(settings.setsid().toString());
            argv.add("--wait"); // should setsid ever have to fork, it still reports the shell's exit status
        }
        if (isolation.containment() == Containment.PID_NAMESPACE) {
            argv.addAll(isolation.namespaceArgv());
            argv.addAll(isolation.userArgv());
            argv.addAll(List.of(settings.shell().toString(), "-c", NAMESPACE_INIT, "forgeflow-job",
                    Long.toString(settings.killGrace().toMillis() / 50), settings.setsid().toString()));
        } else {
            argv.addAll(isolation.userArgv());
        }
        argv.add(settings.shell().toString());
        argv.add("-c");
        argv.add(command);
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        // an allow-list, never the node's own environment (its database URL, tokens): JobEnvironment
        JobEnvironment.ofNode().applyTo(builder.environment(), context.runId(), context.jobId(), context.attempt(),
                context.traceparent());
        return builder;
    }

    private enum Ending { EXITED, TIMED_OUT, CANCELLED }

    private ExecutionResult supervise(Settings settings, Process process, ProcessTree tree, ExecutionContext context,
                                      Set<Integer> permanentExitCodes) {
        closeQuietly(process);
        Semaphore wakeUp = new Semaphore(0);
        TailBuffer output = new TailBuffer(context.maxOutputBytes());
        Thread reader = startReader(process, output, wakeUp, context.runId());
        context.cancellation().onCancel(wakeUp::release);

        Duration timeout = context.timeout().compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : context.timeout();
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        Ending ending;
        try {
            ending = awaitEnd(process, context, deadline, wakeUp);
        } catch (InterruptedException e) {
            interrupted = true; // the worker is stopping: treat it as a cancellation, then restore the flag
            ending = Ending.CANCELLED;
        }
        ProcessTree.Killed killed = tree.kill(settings.killGrace());
        if (ending == Ending.EXITED && killed.found() > 0) {
            log.info("run {} attempt {}: killed {} processes the shell left running", context.runId(),
                    context.attempt(), killed.found());
        }
        if (killed.survivors() > 0) {
            log.warn("run {} attempt {}: {} processes survived SIGKILL", context.runId(), context.attempt(),
                    killed.survivors());
        }
        interrupted |= awaitQuietly(settings, process, reader);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        String text = output.text();
        String treeFate = killed.survivors() == 0 ? "process tree killed"
                : killed.survivors() + " processes of its tree could not be killed";
        switch (ending) {
            case EXITED:
                int exitCode = process.exitValue();
                return exited(exitCode, text, permanentExitCodes);
            case TIMED_OUT:
                return ExecutionResult.timedOut(text, "timed out after " + DurationText.seconds(context.timeout())
                        + "; " + treeFate);
            case CANCELLED:
            default:
                String reason = interrupted && !context.cancellation().isCancelled()
                        ? "worker interrupted" : context.cancellation().reason();
                return ExecutionResult.cancelled(text, "cancelled (" + reason + "); " + treeFate);
        }
    }

    /**
     * Exit 0 succeeds; an exit code listed in {@code payload.permanent_exit_codes} fails permanently; 75 (with
     * {@code FORGEFLOW_SNOOZE_SECONDS=n} printed) snoozes and 76 gives up ({@link RunSignals}).
     */
    private static ExecutionResult exited(int exitCode, String text, Set<Integer> permanentExitCodes) {
        if (exitCode == 0) {
            return ExecutionResult.succeeded(text);
        }
        if (permanentExitCodes.contains(exitCode)) {
            return ExecutionResult.failedPermanently(text, "exit code " + exitCode + " (permanent: listed in payload."
                    + PERMANENT_EXIT_CODES + ")");
        }
        ExecutionResult signal = RunSignals.fromShellExit(exitCode, text);
        return signal != null ? signal : ExecutionResult.failed(text, "exit code " + exitCode);
    }

    /** {@code payload.permanent_exit_codes}: exit codes 1 to 255 no retry can cure; none by default. */
    private static Set<Integer> permanentExitCodes(Map<String, Object> payload) {
        List<?> list = new PayloadReader("shell", payload, KEYS).optionalList(PERMANENT_EXIT_CODES);
        if (list == null) {
            return Set.of();
        }
        String field = PayloadReader.field(PERMANENT_EXIT_CODES);
        if (list.size() > 255) {
            throw new ValidationException(field, field + " must list at most 255 exit codes, e.g. [2, 3]");
        }
        Set<Integer> codes = new HashSet<>();
        for (Object value : list) {
            codes.add((int) PayloadReader.wholeNumber(field, value, 1, 255));
        }
        return Set.copyOf(codes);
    }

    private static Ending awaitEnd(Process process, ExecutionContext context, long deadline, Semaphore wakeUp)
            throws InterruptedException {
        while (true) {
            if (context.cancellation().isCancelled()) {
                return Ending.CANCELLED;
            }
            if (!process.isAlive()) {
                return Ending.EXITED;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Ending.TIMED_OUT;
            }
            // woken at once by a cancellation or the end of output; the poll catches an exit that leaves output open
            wakeUp.tryAcquire(Math.min(left, POLL_NANOS), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Copies the merged output into the buffer. At the end of output it waits for the shell's exit too, then wakes
     * the supervising thread, which thus sees the exit at once rather than at its next poll.
     */
    private static Thread startReader(Process process, TailBuffer output, Semaphore wakeUp, String runId) {
        Thread reader = new Thread(() -> {
            byte[] chunk = new byte[8192];
            try (InputStream in = process.getInputStream()) {
                for (int n; (n = in.read(chunk)) != -1; ) {
                    output.write(chunk, 0, n);
                }
                process.waitFor();
            } catch (IOException e) {
                // the stream was closed under us: what was read is kept
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                wakeUp.release();
            }
        }, "forgeflow-shell-output-" + runId);
        reader.setDaemon(true); // never keeps the JVM up, even if an escaped process holds the pipe open
        reader.start();
        return reader;
    }

    /** Waits for the reaped exit status and the last output; returns whether the thread was interrupted. */
    private static boolean awaitQuietly(Settings settings, Process process, Thread reader) {
        long waitMillis = Math.max(1000, settings.killGrace().toMillis());
        boolean interrupted = false;
        try {
            process.waitFor(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        try {
            reader.join(waitMillis); // output stays open only if a process escaped the session
        } catch (InterruptedException e) {
            interrupted = true;
        }
        return interrupted;
    }

    private static void closeQuietly(Process process) {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the shell already exited
        }
    }
}
