package io.forgeflow.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time spent on a workload, split between the benchmark JVM (or a node process it started) and the PostgreSQL
 * backends serving the workload's database: the figures that stay comparable while other processes share the cores
 * (wall-clock rates do not). Backends are read from {@code /proc/<pid>/stat}, so the database's share is only known
 * when PostgreSQL runs on this machine and this user may read its processes; otherwise it is NaN.
 */
final class CpuMeter {
    private static final double NANOS_PER_TICK = 1e9 / 100; // USER_HZ is 100 on Linux

    private final Connection probe;
    private final String database;
    private final Long pid;
    private long jvmStart;
    private long processStart;
    private Map<Integer, Long> backendsStart = Map.of();

    /**
     * @param probe    a connection to any database of the server, to list the workload database's backends
     * @param database the workload's database
     * @param pid      a process to measure besides this JVM (a node the benchmark started), or null
     */
    CpuMeter(Connection probe, String database, Long pid) {
        this.probe = probe;
        this.database = database;
        this.pid = pid;
    }

    /** CPU spent from {@link #start()} to {@link #stop()}, in milliseconds. */
    record Cpu(double jvmMillis, double processMillis, double databaseMillis) {
        static final Cpu UNKNOWN = new Cpu(Double.NaN, Double.NaN, Double.NaN);

        /** Microseconds of CPU per operation: the JVM (or the node, when one was measured), and the database. */
        double jvmMicrosPer(long ops) {
            return ops <= 0 ? Double.NaN : (Double.isNaN(processMillis) ? jvmMillis : processMillis) * 1000 / ops;
        }

        double databaseMicrosPer(long ops) {
            return ops <= 0 ? Double.NaN : databaseMillis * 1000 / ops;
        }
    }

    void start() {
        jvmStart = jvmNanos();
        processStart = pid == null ? 0 : processNanos(pid);
        backendsStart = backends();
    }

    Cpu stop() {
        long jvm = jvmNanos() - jvmStart;
        double process = pid == null ? Double.NaN : (processNanos(pid) - processStart) / 1e6;
        Map<Integer, Long> now = backends();
        double db;
        if (now.isEmpty() || now.values().stream().anyMatch(v -> v < 0)) {
            db = Double.NaN;
        } else {
            long sum = 0;
            for (Map.Entry<Integer, Long> e : now.entrySet()) {
                sum += e.getValue() - backendsStart.getOrDefault(e.getKey(), 0L);
            }
            db = sum / 1e6;
        }
        return new Cpu(jvm / 1e6, process, db);
    }

    /** The current load average of the machine (1 minute), to say how busy it was; NaN when unknown. */
    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static long jvmNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    /** The backends of the database (every connection, autovacuum included) and their CPU so far; -1 if unreadable. */
    private Map<Integer, Long> backends() {
        Map<Integer, Long> cpu = new HashMap<>();
        try (PreparedStatement ps = probe.prepareStatement("SELECT pid FROM pg_stat_activity WHERE datname = ?")) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    cpu.put(rs.getInt(1), processNanos(rs.getInt(1)));
                }
            }
        } catch (SQLException e) {
            return Map.of();
        }
        return cpu;
    }

    /** utime + stime of a process in nanoseconds, -1 if it cannot be read. */
    static long processNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after "pid (comm) ": state is field 3, utime 14, stime 15 (1-based), so indexes 11 and 12 here
            return (long) ((Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
