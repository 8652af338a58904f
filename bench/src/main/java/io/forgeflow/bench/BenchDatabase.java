package io.forgeflow.bench;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.forgeflow.adapter.postgres.PostgresMigrations;
import io.forgeflow.adapter.postgres.PostgresSchema;
import io.forgeflow.adapter.postgres.PostgresUrls;
import io.forgeflow.devdatabase.DevelopmentDatabase;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;

/**
 * The PostgreSQL server the benchmark runs on ({@code FORGEFLOW_DATABASE_URL}, or an embedded one), and a fresh,
 * migrated database on it per workload, dropped afterwards.
 */
final class BenchDatabase implements AutoCloseable {
    private final String serverUrl;   // jdbc:postgresql://host:port/ (no database)
    private final String query;       // ?... of the configured URL, or ""
    private final String user;
    private final String password;
    private final DevelopmentDatabase embedded;

    private BenchDatabase(String serverUrl, String query, String user, String password, DevelopmentDatabase embedded) {
        this.serverUrl = serverUrl;
        this.query = query;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
    }

    static BenchDatabase open(String databaseUrl) throws Exception {
        if (databaseUrl == null || databaseUrl.isBlank()) {
            Path dir = Files.createTempDirectory("forgeflow-bench-");
            DevelopmentDatabase dev = DevelopmentDatabase.start(dir.resolve("data"));
            String url = dev.jdbcUrl();
            return new BenchDatabase(url.substring(0, url.lastIndexOf('/') + 1), "", dev.user(), "", dev);
        }
        PostgresUrls.Parsed parsed = PostgresUrls.parse(databaseUrl);
        String jdbc = parsed.jdbcUrl();
        int q = jdbc.indexOf('?');
        String query = q < 0 ? "" : jdbc.substring(q);
        String noQuery = q < 0 ? jdbc : jdbc.substring(0, q);
        int slash = noQuery.indexOf('/', "jdbc:postgresql://".length());
        String server = slash < 0 ? noQuery + "/" : noQuery.substring(0, slash + 1);
        return new BenchDatabase(server, query, parsed.user() == null ? "postgres" : parsed.user(),
                parsed.password() == null ? "" : parsed.password(), null);
    }

    /** Whether this is the embedded development PostgreSQL (no {@code FORGEFLOW_DATABASE_URL}). */
    boolean embedded() {
        return embedded != null;
    }

    String describe() {
        return embedded != null ? "embedded PostgreSQL (" + serverUrl + ")" : serverUrl + " as " + user;
    }

    /** The server's version and autovacuum setting, as the server reports them. */
    String serverSettings() {
        try (Connection c = connect("postgres"); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet r = st.executeQuery("SELECT current_setting('server_version'), "
                     + "current_setting('autovacuum')")) {
            r.next();
            return "PostgreSQL " + r.getString(1) + ", autovacuum " + r.getString(2)
                    + ("off".equals(r.getString(2)) ? " (statistics refreshed every 15 s, as a node's leader does)" : "");
        } catch (SQLException e) {
            return "server settings unknown: " + e.getMessage();
        }
    }

    /** Creates and migrates a fresh database; the caller closes it (which drops it). */
    Fresh fresh(String label) throws Exception {
        String name = "ff_bench_" + label.toLowerCase().replaceAll("[^a-z0-9]", "_") + "_"
                + Integer.toHexString(new SecureRandom().nextInt(0x1000000));
        try (Connection c = admin(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        }
        DataSourceFactory dsf = new DataSourceFactory();
        dsf.setDriverClass("org.postgresql.Driver");
        dsf.setUrl(url(name));
        dsf.setUser(user);
        dsf.setPassword(password);
        dsf.setMinSize(4);
        dsf.setInitialSize(4);
        dsf.setMaxSize(40);
        dsf.setCheckConnectionOnBorrow(false);
        dsf.setProperties(Map.of(PostgresSchema.CONNECTION_PROPERTY, PostgresSchema.DEFAULT));
        ManagedDataSource ds = dsf.build(new MetricRegistry(), "bench-" + name);
        PostgresMigrations.migrate(ds);
        return new Fresh(name, ds);
    }

    String url(String database) {
        return serverUrl + database + query;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    Connection connect(String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty(PostgresSchema.CONNECTION_PROPERTY, PostgresSchema.DEFAULT); // ForgeFlow's tables, as a node sees them
        return DriverManager.getConnection(url(database), p);
    }

    private Connection admin() throws SQLException {
        return connect("postgres");
    }

    @Override
    public void close() throws Exception {
        if (embedded != null) {
            embedded.stop();
        }
    }

    /** A fresh database and a pool on it. */
    final class Fresh implements AutoCloseable {
        final String name;
        final ManagedDataSource dataSource;

        Fresh(String name, ManagedDataSource dataSource) {
            this.name = name;
            this.dataSource = dataSource;
        }

        String jdbcUrlWithCredentials() {
            String u = url(name);
            return u + (u.contains("?") ? "&" : "?") + "user=" + user + (password.isEmpty() ? "" : "&password=" + password);
        }

        @Override
        public void close() throws Exception {
            dataSource.stop();
            try (Connection c = admin(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        }
    }
}
