package io.forgeflow.test;

import io.forgeflow.adapter.postgres.PostgresUrls;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/** Fresh databases on the server of {@code FORGEFLOW_TEST_DATABASE_URL}, dropped when the JVM exits. */
final class TestDatabases {
    static final String ENV = "FORGEFLOW_TEST_DATABASE_URL";

    private TestDatabases() {
    }

    record Fresh(String jdbcUrl, String user, String password) {
    }

    private static final java.util.List<java.util.function.BooleanSupplier> USERS =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private static Fresh shared;

    /**
     * The JVM's test database {@code fft_<random>} (created, and migrated by the first context, once per JVM: the
     * contexts of one test run share it), or null when the variable is not set. {@code inUse} tells whether the
     * context using it is still open: the database is dropped at JVM exit once none is.
     */
    static synchronized Fresh freshFromEnvironment(java.util.function.BooleanSupplier inUse) {
        if (shared == null) {
            shared = create();
        }
        if (shared != null) {
            USERS.add(inUse);
        }
        return shared;
    }

    private static Fresh create() {
        java.util.function.BooleanSupplier inUse = () -> USERS.stream().anyMatch(java.util.function.BooleanSupplier::getAsBoolean);
        String url = System.getenv(ENV);
        if (url == null || url.isBlank()) {
            return null;
        }
        PostgresUrls.Parsed server = PostgresUrls.parse(url);
        String name = "fft_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
        try (Connection c = connect(server.jdbcUrl(), server); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(ENV + " (" + PostgresUrls.redact(url) + "): could not create a test "
                    + "database there: " + e.getMessage() + "; the user needs CREATEDB", e);
        }
        // at JVM exit, once the test's context has closed (its worker drained, its pool shut): Spring closes it from
        // a shutdown hook of its own, which runs at the same time as this one
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (inUse.getAsBoolean() && System.nanoTime() < deadline) {
                try {
                    java.util.concurrent.TimeUnit.MILLISECONDS.sleep(20); // polling the context's state with a deadline
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            drop(server, name);
        }, "forgeflow-test-drop-" + name));
        return new Fresh(withDatabase(server.jdbcUrl(), name), server.user(), server.password());
    }

    private static void drop(PostgresUrls.Parsed server, String name) {
        try (Connection c = connect(server.jdbcUrl(), server); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("forgeflow-test: could not drop test database " + name + ": " + e.getMessage());
        }
    }

    private static Connection connect(String jdbcUrl, PostgresUrls.Parsed server) throws SQLException {
        Properties p = new Properties();
        if (server.user() != null) {
            p.setProperty("user", server.user());
        }
        if (server.password() != null) {
            p.setProperty("password", server.password());
        }
        return DriverManager.getConnection(jdbcUrl, p);
    }

    /** {@code jdbc:postgresql://host:port/other?x} with the database replaced by {@code name}. */
    static String withDatabase(String jdbcUrl, String name) {
        String prefix = "jdbc:postgresql://";
        int slash = jdbcUrl.indexOf('/', prefix.length());
        if (!jdbcUrl.startsWith(prefix) || slash < 0) {
            throw new IllegalArgumentException(ENV + " must name a database, e.g. postgresql://postgres@127.0.0.1:5432/"
                    + "postgres");
        }
        int query = jdbcUrl.indexOf('?', slash);
        return jdbcUrl.substring(0, slash + 1) + name + (query < 0 ? "" : jdbcUrl.substring(query));
    }
}
