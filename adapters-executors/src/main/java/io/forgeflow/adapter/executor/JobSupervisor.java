package io.forgeflow.adapter.executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Keeps a shell attempt from outliving its worker: one tiny supervisor process per attempt, in a session of its own,
 * holding a pipe from this JVM. A thread of this JVM writes a byte into every pipe every {@link #feedEvery()}; the
 * supervisor kills the attempt's process group (SIGTERM, then SIGKILL a second later) when
 * <ul>
 *   <li>the pipe closes without a goodbye: the JVM died (SIGKILL, OOM kill, crash), so at once; or</li>
 *   <li>no byte arrives for {@link #silence()}: the JVM is frozen (SIGSTOP, a VM pause) or hung. The silence is
 *       shorter than the lease, so the process is gone before the lease can expire and another worker can start the
 *       run again.</li>
 * </ul>
 * With {@link Containment#PID_NAMESPACE} the group is the attempt's {@code unshare} and the namespace's init: their
 * SIGKILL ends every process of the namespace, including those that left the group.
 * When the attempt ends normally the executor {@linkplain Watch#release() releases} the watch: the supervisor reads
 * the goodbye byte and exits without killing anything. Timeout and cancellation are still handled by the executor.
 *
 * <p>The supervisor is {@code setsid /bin/sh -c <script>} with coreutils {@code timeout} and {@code dd} reading one
 * byte at a time (a two-process fork per feed). Where {@code setsid}, {@code timeout} or {@code dd} is missing, no
 * supervisor is started (a warning is logged once) and a dying worker leaves its jobs running, as before.
 */
final class JobSupervisor {
    private static final Logger log = LoggerFactory.getLogger(JobSupervisor.class);
    private static final byte FEED = '.';
    private static final byte GOODBYE = 'q';
    /** $1 the process group, $2 the silence in seconds: a fed byte loops, a goodbye exits, EOF or silence kills. */
    static final String SCRIPT = "pg=$1; t=$2\n"
            + "while c=$(timeout \"$t\" dd bs=1 count=1 2>/dev/null) && [ -n \"$c\" ]; do\n"
            + "  [ \"$c\" = q ] && exit 0\n"
            + "done\n"
            + "kill -s TERM -- -\"$pg\" 2>/dev/null\n"
            + "sleep 1\n"
            + "kill -s KILL -- -\"$pg\" 2>/dev/null\n"
            + "exit 0\n";

    private final Duration silence;
    private final Path setsid;
    private final Path shell;
    private final boolean available;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final BlockingQueue<Watch> starts = new LinkedBlockingQueue<>();
    private Thread thread;
    private volatile boolean feeding = true;

    /**
     * @param silence how long a supervisor waits without a byte before it kills the attempt; positive
     * @param setsid  util-linux {@code setsid}, or null (no supervision)
     */
    JobSupervisor(Duration silence, Path setsid, Path shell) {
        Objects.requireNonNull(silence, "silence");
        if (silence.isNegative() || silence.isZero()) {
            throw new IllegalArgumentException("silence must be positive, was " + silence);
        }
        this.silence = silence;
        this.setsid = setsid;
        this.shell = Objects.requireNonNull(shell, "shell");
        this.available = setsid != null && onPath("timeout") && onPath("dd");
        if (!available) {
            log.warn("no setsid, timeout or dd binary: shell jobs are not supervised, and a worker that dies or "
                    + "freezes leaves their processes running while another worker may run the attempt again");
        }
    }

    Duration silence() {
        return silence;
    }

    /** How often the supervisors are fed: a fifth of the silence, between 100 ms and 2 s. */
    Duration feedEvery() {
        Duration fifth = silence.dividedBy(5);
        if (fifth.compareTo(Duration.ofMillis(100)) < 0) {
            return Duration.ofMillis(100);
        }
        return fifth.compareTo(Duration.ofSeconds(2)) > 0 ? Duration.ofSeconds(2) : fifth;
    }

    /**
     * Supervises the process group {@code processGroup} (the attempt's shell, which leads its own session and group).
     * The supervisor process is started by this class's thread, not the caller's, so an attempt does not wait for it
     * (a few milliseconds pass unsupervised); an attempt released before its supervisor started gets none. When
     * supervision is unavailable the watch does nothing.
     */
    Watch watch(long processGroup) {
        Watch watch = new Watch(processGroup);
        if (available) {
            starts.add(watch);
            startThread();
        }
        return watch;
    }

    /** How many supervisors are fed now. */
    int watching() {
        return watches.size();
    }

    /** Stops feeding, as a frozen JVM would (tests). */
    void pauseFeeding() {
        feeding = false;
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.3f", d.toMillis() / 1000.0);
    }

    private synchronized void startThread() {
        if (thread != null) {
            return;
        }
        Thread t = new Thread(this::loop, "forgeflow-shell-supervisor");
        t.setDaemon(true);
        t.start();
        thread = t;
    }

    /** Starts the supervisors asked for, and feeds every live one each {@link #feedEvery()}. */
    private void loop() {
        long feedNanos = feedEvery().toNanos();
        long nextFeed = System.nanoTime() + feedNanos;
        while (true) {
            try {
                Watch next = starts.poll(Math.max(0, nextFeed - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (next != null) {
                    next.start();
                }
            } catch (InterruptedException e) {
                return;
            }
            if (System.nanoTime() - nextFeed >= 0) {
                if (feeding) {
                    for (Watch watch : watches) {
                        watch.send(FEED);
                    }
                }
                nextFeed = System.nanoTime() + feedNanos;
            }
        }
    }

    private static boolean onPath(String binary) {
        return Stream.of("/usr/bin", "/bin").map(dir -> Path.of(dir, binary)).anyMatch(Files::isExecutable);
    }

    /** One attempt's supervisor. Thread-safe. */
    final class Watch {
        private final long processGroup;
        private Process process;
        private OutputStream pipe;
        private boolean ended;

        private Watch(long processGroup) {
            this.processGroup = processGroup;
        }

        private synchronized void start() {
            if (ended) {
                return; // the attempt ended first: nothing to supervise
            }
            try {
                process = new ProcessBuilder(List.of(setsid.toString(), shell.toString(), "-c", SCRIPT,
                        "forgeflow-supervisor", Long.toString(processGroup), seconds(silence)))
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                pipe = process.getOutputStream();
                watches.add(this);
            } catch (IOException | RuntimeException e) {
                log.warn("could not start the supervisor of process group {}: {}", processGroup, e.toString());
            }
        }

        /** Whether a supervisor process watches the attempt now. */
        synchronized boolean supervised() {
            return process != null && !ended;
        }

        /** The supervisor's pid, or -1 while it has none. */
        synchronized long pid() {
            return process == null ? -1 : process.pid();
        }

        /** The attempt ended and its tree was killed: the supervisor exits without killing anything. */
        synchronized void release() {
            end(true);
        }

        /** Closes the pipe without a goodbye, as a dying JVM does (tests). */
        synchronized void abandon() {
            end(false);
        }

        private void end(boolean goodbye) {
            if (ended) {
                return;
            }
            ended = true;
            watches.remove(this);
            if (pipe == null) {
                return;
            }
            if (goodbye) {
                write(GOODBYE);
            }
            try {
                pipe.close();
            } catch (IOException e) {
                // already gone
            }
        }

        private synchronized void send(byte b) {
            if (!ended) {
                write(b);
            }
        }

        private void write(byte b) {
            try {
                pipe.write(b);
                pipe.flush();
            } catch (IOException e) {
                watches.remove(this); // the supervisor is gone (it killed the group, or was killed)
            }
        }
    }
}
