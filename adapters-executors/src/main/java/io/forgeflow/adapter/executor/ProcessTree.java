package io.forgeflow.adapter.executor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The processes one shell attempt started: the shell itself, every live process of the session it leads, and its
 * descendants.
 *
 * <p>The shell is started through {@code setsid}, so it leads a new session (and process group) whose id is its
 * pid. Every process it starts stays in that session, even one orphaned by a double fork ({@code (cmd &)}) that is
 * no longer its descendant, unless it calls {@code setsid} itself: such a process has opted out and is not
 * found. Members are found by reading the session id in {@code /proc/<pid>/stat}; where there is no {@code /proc}
 * or no {@code setsid}, only the shell's descendants are found. Zombies count as gone.
 *
 * <p>Signals are sent through {@link ProcessHandle}, which checks the process start time, so a pid reused by an
 * unrelated process is never signalled.
 */
final class ProcessTree {
    private static final Path PROC = Path.of("/proc");
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final Duration KILL_WAIT = Duration.ofSeconds(2);

    private final ProcessHandle root;
    private final long sessionId;

    /**
     * @param ownSession whether the root leads its own session (it was started through {@code setsid})
     */
    ProcessTree(ProcessHandle root, boolean ownSession) {
        this.root = root;
        this.sessionId = ownSession ? root.pid() : -1;
    }

    /**
     * Sends SIGTERM to every member, waits up to {@code grace} for all to exit, then sends SIGKILL to whatever is
     * left (including processes forked meanwhile) until none is, for at most two more seconds.
     */
    Killed kill(Duration grace) {
        List<ProcessHandle> members = liveMembers();
        if (members.isEmpty()) {
            return new Killed(0, 0);
        }
        int found = members.size();
        members.forEach(ProcessHandle::destroy);
        if (awaitNone(grace)) {
            return new Killed(found, 0);
        }
        long deadline = System.nanoTime() + KILL_WAIT.toNanos();
        do {
            members = liveMembers();
            if (members.isEmpty()) {
                return new Killed(found, 0);
            }
            members.forEach(ProcessHandle::destroyForcibly);
            LockSupport.parkNanos(PAUSE_NANOS);
        } while (System.nanoTime() < deadline);
        return new Killed(found, liveMembers().size());
    }

    /**
     * What {@link #kill} did.
     *
     * @param found     how many processes were running when it began
     * @param survivors how many still run (0 unless one is stuck in uninterruptible sleep)
     */
    record Killed(int found, int survivors) {
    }

    private boolean awaitNone(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!liveMembers().isEmpty()) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            LockSupport.parkNanos(PAUSE_NANOS);
        }
        return true;
    }

    /** The members still running, the root first. */
    List<ProcessHandle> liveMembers() {
        Map<Long, ProcessHandle> members = new LinkedHashMap<>();
        if (root.isAlive()) {
            members.put(root.pid(), root);
        }
        root.descendants().forEach(process -> members.put(process.pid(), process));
        if (sessionId > 0 && Files.isDirectory(PROC)) {
            for (long pid : pidsInSession(sessionId)) {
                ProcessHandle.of(pid).ifPresent(process -> members.putIfAbsent(pid, process));
            }
        }
        List<ProcessHandle> live = new ArrayList<>();
        for (ProcessHandle process : members.values()) {
            if (process.isAlive() && !isZombie(process.pid())) {
                live.add(process);
            }
        }
        return live;
    }

    private static List<Long> pidsInSession(long session) {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, ProcessTree::isPidDirectory)) {
            for (Path entry : entries) {
                long pid = Long.parseLong(entry.getFileName().toString());
                stat(pid).filter(stat -> stat.session == session).ifPresent(stat -> pids.add(pid));
            }
        } catch (IOException | RuntimeException e) {
            // /proc vanished or is unreadable: fall back to the descendants already collected
        }
        return pids;
    }

    private static boolean isPidDirectory(Path entry) {
        String name = entry.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }

    private static boolean isZombie(long pid) {
        return stat(pid).map(stat -> stat.state == 'Z' || stat.state == 'X').orElse(false);
    }

    /** Fields of {@code /proc/<pid>/stat}; empty if the process is gone or there is no /proc. */
    static Optional<Stat> stat(long pid) {
        try {
            String line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
            // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses, so split after the last ')'
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[2]), Long.parseLong(fields[3])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** A process's state letter (R, S, D, Z ...), process group and session. */
    record Stat(char state, long processGroup, long session) {
    }
}
