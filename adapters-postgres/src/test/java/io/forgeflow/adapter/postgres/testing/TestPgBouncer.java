package io.forgeflow.adapter.postgres.testing;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's PgBouncer in transaction mode on a loopback port, in front of a test database: the role gets in that
 * database what a transaction pooler cannot carry (README "Behind PgBouncer in transaction mode"). In CI a missing
 * pgbouncer fails the test ({@code .ci/run} installs it); elsewhere {@link #requireOrSkip()} skips it, saying why.
 */
public final class TestPgBouncer implements AutoCloseable {
    public static final String BINARY = "/usr/sbin/pgbouncer";

    private final Process process;
    private final Path dir;
    private final int port;

    private TestPgBouncer(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** Null when pgbouncer is here; else why not (which CI treats as a failure, see {@link #requireOrSkip()}). */
    public static String missing() {
        return Files.isExecutable(Path.of(BINARY)) ? null : BINARY + " is not installed";
    }

    /** Fails in CI, skips elsewhere, when pgbouncer is missing. */
    public static void requireOrSkip() {
        String missing = missing();
        if (missing != null && "true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError(missing + "; CI must run this test (.ci/run installs it)");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(missing == null, missing);
    }

    /**
     * Starts PgBouncer before {@code pg}'s database. {@code anyDatabase}: also route other databases of that server
     * (a {@code *} entry). {@code idleInTransaction}: the role's idle_in_transaction_session_timeout there.
     */
    public static TestPgBouncer start(PostgresExtension pg, int poolSize, int maxClients, boolean anyDatabase,
                                      String idleInTransaction) throws Exception {
        URI uri = URI.create(pg.jdbcUrl().substring("jdbc:".length()));
        String database = uri.getPath().substring(1);
        pg.jdbi().useHandle(h -> {
            for (String setting : List.of("search_path = forgeflow", "statement_timeout = '30s'",
                    "lock_timeout = '5s'", "idle_in_transaction_session_timeout = '" + idleInTransaction + "'")) {
                h.execute("ALTER ROLE " + pg.user() + " IN DATABASE " + database + " SET " + setting);
            }
        });
        Path dir = Files.createTempDirectory("forgeflow-pgbouncer");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        int port = LoopbackPorts.outsideEphemeralRange();
        Files.writeString(dir.resolve("users.txt"), "\"" + pg.user() + "\" \"" + pg.password() + "\"\n");
        List<String> ini = new ArrayList<>(List.of("[databases]",
                database + " = host=" + uri.getHost() + " port=" + uri.getPort() + " dbname=" + database));
        if (anyDatabase) {
            ini.add("* = host=" + uri.getHost() + " port=" + uri.getPort());
        }
        ini.addAll(List.of("[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = " + (pg.password().isEmpty() ? "trust" : "plain"),
                "auth_file = " + dir.resolve("users.txt"),
                "pool_mode = transaction",
                "default_pool_size = " + poolSize,
                "max_client_conn = " + maxClients,
                "ignore_startup_parameters = extra_float_digits",
                "server_reset_query =",
                ""));
        Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n", ini));
        List<String> command = new ArrayList<>(List.of(BINARY));
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "nobody")); // it refuses to run as root
        }
        command.add(dir.resolve("pgbouncer.ini").toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("pgbouncer.log").toFile()).start();
        TestPgBouncer bouncer = new TestPgBouncer(process, dir, port);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return bouncer;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > end) {
                    bouncer.close();
                    throw new IllegalStateException("pgbouncer did not start: " + bouncer.log());
                }
                Thread.sleep(100);
            }
        }
    }

    public int port() {
        return port;
    }

    /** Its working directory (configuration, log), where a test may keep files of its own. */
    public Path dir() {
        return dir;
    }

    public String log() {
        try {
            return Files.readString(dir.resolve("pgbouncer.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
