package io.forgeflow.devdatabase;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

/**
 * The single-node development database: an embedded PostgreSQL (zonky) whose files live in a directory of the
 * working directory ({@code ./forgeflow-data} by default), so jobs survive a restart. Started only when no
 * {@code FORGEFLOW_DATABASE_URL} is configured, and announced loudly: nothing else can join this cluster. The node
 * (server) and the bench start it; a module of its own, so neither needs the other.
 */
public final class DevelopmentDatabase implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DevelopmentDatabase.class);
    private final EmbeddedPostgres postgres;

    private DevelopmentDatabase(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /** Starts (or restarts over existing files) the embedded database and makes sure database {@code forgeflow} exists. */
    public static DevelopmentDatabase start(Path dataDirectory) throws IOException {
        Path dir = dataDirectory.toAbsolutePath();
        Files.createDirectories(dir);
        // as root, zonky runs PostgreSQL as an unprivileged user (unshare -U): it must own the data directory
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system: leave it
        }
        EmbeddedPostgres pg;
        try {
            pg = EmbeddedPostgres.builder()
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(false)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("max_connections", "200")
                    .start();
        } catch (IOException | RuntimeException e) {
            throw new IOException("could not start the embedded development PostgreSQL in " + dir + ": " + e.getMessage()
                    + ". Point the node at a PostgreSQL server instead: FORGEFLOW_DATABASE_URL=postgresql://user:pass@host:5432/db", e);
        }
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = 'forgeflow'")) {
                if (!rs.next()) {
                    st.execute("CREATE DATABASE forgeflow");
                }
            }
        } catch (java.sql.SQLException e) {
            pg.close();
            throw new IOException("the embedded PostgreSQL started but database 'forgeflow' could not be created: " + e.getMessage(), e);
        }
        String banner = "\n"
                + "==========================================================================================\n"
                + "  SINGLE-NODE DEVELOPMENT MODE: no FORGEFLOW_DATABASE_URL is set, so this node runs on an\n"
                + "  embedded PostgreSQL (port " + pg.getPort() + ", files in " + dir + ").\n"
                + "  Jobs survive a restart, but no other node can join this cluster.\n"
                + "  For a real cluster: FORGEFLOW_DATABASE_URL=postgresql://user:pass@db-host:5432/forgeflow\n"
                + "==========================================================================================";
        LOG.warn(banner);
        return new DevelopmentDatabase(pg);
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/forgeflow";
    }

    public String user() {
        return "postgres";
    }

    /** Stops PostgreSQL; its files stay for the next start. */
    public void stop() throws IOException {
        postgres.close();
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
