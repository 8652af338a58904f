package io.forgeflow.adapter.postgres.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * A {@code psql} process playing an application or an operator: it runs a statement in a transaction and keeps the
 * transaction (and its locks) open, for a number of seconds ({@link #hold}) or until {@link #commit()}
 * ({@link #holdOpen}). {@link #close()} kills it and ends its session, so its locks go. Its sessions are named
 * {@code applicationName} in {@code pg_stat_activity}.
 */
public final class PsqlSession implements AutoCloseable {
    private final Process process;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String applicationName;

    private PsqlSession(Process process, String jdbcUrl, String user, String password, String applicationName) {
        this.process = process;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.applicationName = applicationName;
    }

    /** Starts psql on {@code pg}'s database; returns once it holds the statement's locks, which it keeps for {@code seconds}, then commits. */
    public static PsqlSession hold(PostgresExtension pg, String applicationName, String statement, int seconds)
            throws IOException, InterruptedException {
        return start(pg.jdbcUrl(), pg.user(), pg.password(), applicationName, statement,
                "SELECT pg_sleep(" + seconds + ");\nCOMMIT;\n\\q\n");
    }

    /** Starts psql on the database of {@code jdbcUrl}; returns once it holds the statement's locks, kept until {@link #commit()}. */
    public static PsqlSession holdOpen(String jdbcUrl, String user, String password, String applicationName,
                                       String statement) throws IOException, InterruptedException {
        return start(jdbcUrl, user, password, applicationName, statement, null);
    }

    private static PsqlSession start(String jdbcUrl, String user, String password, String applicationName,
                                     String statement, String after) throws IOException, InterruptedException {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        ProcessBuilder builder = new ProcessBuilder("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", uri.getHost(),
                "-p", String.valueOf(uri.getPort()), "-U", user, "-d", uri.getPath().substring(1))
                .redirectErrorStream(true);
        builder.environment().put("PGAPPNAME", applicationName);
        if (password != null && !password.isEmpty()) {
            builder.environment().put("PGPASSWORD", password);
        }
        PsqlSession session = new PsqlSession(builder.start(), jdbcUrl, user, password, applicationName);
        String script = "BEGIN;\n" + statement + ";\n\\echo locked\n" + (after == null ? "" : after);
        session.process.getOutputStream().write(script.getBytes(StandardCharsets.UTF_8));
        if (after == null) {
            session.process.getOutputStream().flush();
        } else {
            session.process.getOutputStream().close();
        }
        StringBuilder seen = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!seen.toString().contains("locked")) {
            int c = session.process.getInputStream().read();
            if (c < 0 || System.nanoTime() > deadline) {
                session.close();
                throw new AssertionError("psql did not take its locks: " + seen);
            }
            seen.append((char) c);
        }
        return session;
    }

    /** Commits the transaction of a session started by {@link #holdOpen} and ends psql. */
    public void commit() throws IOException {
        process.getOutputStream().write("COMMIT;\n\\q\n".getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
    }

    /**
     * Kills psql and ends its session (a backend inside pg_sleep would not notice its client left until the sleep
     * ends): its locks are gone when this returns.
     */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, password);
             PreparedStatement st = c.prepareStatement("SELECT pg_terminate_backend(pid, 10000) "
                     + "FROM pg_stat_activity WHERE application_name = ?")) {
            st.setString(1, applicationName);
            st.executeQuery().close();
        } catch (SQLException e) {
            throw new IllegalStateException("could not end the psql session " + applicationName, e);
        }
    }
}
