package io.forgeflow.adapter.postgres;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Readiness of the database for {@code /readyz}: it answers a query within a few seconds and no changeset of the
 * changelog is pending.
 *
 * <p>A node's probe ({@link #PostgresHealth(Supplier, Duration, String)}) runs on a connection of its own, outside the pool
 * the workers' heartbeats use, at most once per {@code maxAge}; callers in between get the last answer, and callers
 * that arrive while a probe runs get the previous one instead of waiting, so a flood of probes costs the database one
 * query a second. Once the schema was seen migrated it is not read again (a schema does not un-migrate).
 */
public final class PostgresHealth {
    private static final int QUERY_TIMEOUT_SECONDS = 3;

    private final Supplier<Connection> connections;
    private final long maxAgeNanos;
    private final String schema;
    private final ReentrantLock probing = new ReentrantLock();
    private final AtomicLong probes = new AtomicLong();
    private volatile Probe last;
    private volatile boolean migrated;
    private Connection connection;

    /** What one probe found: {@code reason} is short and safe to show anyone, {@code detail} is for operators. */
    public record Probe(long atNanos, Optional<String> reason, Optional<String> detail) {
        public boolean ready() {
            return reason.isEmpty();
        }
    }

    /** A probe on every call, on a connection of {@code dataSource} (tools and tests). */
    public PostgresHealth(DataSource dataSource) {
        this(dataSource, PostgresSchema.DEFAULT);
    }

    /** A probe on every call, on a connection of {@code dataSource}, of the install in {@code schema}. */
    public PostgresHealth(DataSource dataSource, String schema) {
        this(fromPool(Objects.requireNonNull(dataSource, "dataSource")), Duration.ZERO, schema);
    }

    /**
     * @param connections opens the probe's own connection (kept open between probes, reopened after a failure)
     * @param maxAge      how long an answer is reused; 1 s on a node
     * @param schema      the schema ForgeFlow's tables live in ({@link PostgresSchema})
     */
    public PostgresHealth(Supplier<Connection> connections, Duration maxAge, String schema) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.maxAgeNanos = maxAge.toNanos();
        this.schema = PostgresSchema.require(schema);
    }

    /** Empty when the database answers and is migrated; otherwise what is wrong, in words for an operator. */
    public Optional<String> problem() {
        return probe().detail();
    }

    /** The answer of the last probe if fresh, else of a new one (or the previous one while another caller probes). */
    public Probe probe() {
        Probe current = last;
        if (current != null && System.nanoTime() - current.atNanos() < maxAgeNanos) {
            return current;
        }
        if (!probing.tryLock()) {
            if (current != null) {
                return current;
            }
            probing.lock();
        }
        try {
            current = last;
            if (current != null && System.nanoTime() - current.atNanos() < maxAgeNanos) {
                return current;
            }
            current = runProbe();
            if (maxAgeNanos == 0) {
                closeConnection(); // a per-call health gives its pooled connection back
            }
            last = current;
            return current;
        } finally {
            probing.unlock();
        }
    }

    /** How many probes reached the database so far. */
    public long probeCount() {
        return probes.get();
    }

    private Probe runProbe() {
        probes.incrementAndGet();
        try {
            if (connection == null) {
                connection = connections.get();
            }
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
                try (ResultSet rs = statement.executeQuery("SELECT 1")) {
                    rs.next();
                }
            }
        } catch (SQLException | RuntimeException e) {
            closeConnection();
            return notReady("database unreachable", "database unreachable: " + e.getMessage());
        }
        if (migrated) {
            return new Probe(System.nanoTime(), Optional.empty(), Optional.empty());
        }
        List<String> pending;
        try {
            pending = PostgresMigrations.pendingChangeSets(connection, schema);
        } catch (RuntimeException e) {
            closeConnection();
            return notReady("database migration status unknown", "database migration status unknown: "
                    + e.getMessage());
        }
        if (!pending.isEmpty()) {
            return notReady("database schema not migrated", "database schema is not migrated (" + pending.size()
                    + " changesets pending, first " + pending.get(0)
                    + "): restart the server, which migrates at start, or run `db migrate`");
        }
        migrated = maxAgeNanos > 0; // a per-call health (tools, tests) reads the schema every time
        return new Probe(System.nanoTime(), Optional.empty(), Optional.empty());
    }

    private static Probe notReady(String reason, String detail) {
        return new Probe(System.nanoTime(), Optional.of(reason), Optional.of(detail));
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // it is being replaced anyway
            }
            connection = null;
        }
    }

    /** Closes the probe's connection. */
    public void close() {
        probing.lock();
        try {
            closeConnection();
        } finally {
            probing.unlock();
        }
    }

    private static Supplier<Connection> fromPool(DataSource dataSource) {
        return () -> {
            try {
                return dataSource.getConnection();
            } catch (SQLException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        };
    }
}
