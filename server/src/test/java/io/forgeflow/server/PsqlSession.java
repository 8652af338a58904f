package io.forgeflow.server;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A {@code psql} process playing an application or an operator: it runs a statement in a transaction and keeps the
 * transaction (and its locks) open for {@code seconds}, then commits. {@link #close()} kills it and ends its
 * session, so its locks go. Its sessions are named {@code applicationName} in {@code pg_stat_activity}.
 */
final class PsqlSession implements AutoCloseable {
    private final Process process;
    private final PostgresExtension pg;
    private final String applicationName;

    private PsqlSession(Process process, PostgresExtension pg, String applicationName) {
        this.process = process;
        this.pg = pg;
        this.applicationName = applicationName;
    }

    /** Starts psql and returns once it holds the statement's locks. */
    static PsqlSession hold(PostgresExtension pg, String applicationName, String statement, int seconds)
            throws Exception {
        URI uri = URI.create(pg.jdbcUrl().substring("jdbc:".length()));
        ProcessBuilder builder = new ProcessBuilder("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", uri.getHost(),
                "-p", String.valueOf(uri.getPort()), "-U", pg.user(), "-d", uri.getPath().substring(1))
                .redirectErrorStream(true);
        builder.environment().put("PGAPPNAME", applicationName);
        if (!pg.password().isEmpty()) {
            builder.environment().put("PGPASSWORD", pg.password());
        }
        PsqlSession session = new PsqlSession(builder.start(), pg, applicationName);
        String script = "BEGIN;\n" + statement + ";\n\\echo locked\nSELECT pg_sleep(" + seconds + ");\nCOMMIT;\n\\q\n";
        session.process.getOutputStream().write(script.getBytes(StandardCharsets.UTF_8));
        session.process.getOutputStream().close();
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

    /**
     * Kills psql and ends its session (a backend inside pg_sleep would not notice its client left until the sleep
     * ends): its locks are gone when this returns.
     */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        pg.jdbi().useHandle(h -> h.createQuery("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                + "WHERE application_name = :name").bind("name", applicationName).mapTo(Boolean.class).list());
    }
}
