package io.forgeflow.embedded;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An embedded worker whose application pool goes through PgBouncer in transaction mode (Debian's pgbouncer, started
 * here on loopback with ONE server connection, so that every client of the pooler shares one PostgreSQL session and
 * sees whatever session state another left on it): the worker runs its jobs once each and leaves no session state on
 * the pooler's server connection (no LISTEN, whose notifications PgBouncer then drops with "got packet 'A' from server
 * when not linked", no {@code synchronous_commit = off} for the next client's commits). Issue 46's scale test runs
 * 500 such workers.
 */
class EmbeddedPgBouncerIT {
    private static final String PGBOUNCER = "/usr/sbin/pgbouncer";

    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static Path dir;
    static Process bouncer;
    static int port;
    static String database;

    HikariDataSource app;
    final List<ForgeFlowWorker> workers = new ArrayList<>();

    @BeforeAll
    static void startPgBouncer() throws Exception {
        String missing = Files.isExecutable(Path.of(PGBOUNCER)) ? null : PGBOUNCER + " is not installed";
        if (missing != null && "true".equalsIgnoreCase(System.getenv("CI"))) {
            fail(missing + "; CI must run this test (.ci/run installs it)");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(missing == null, missing);
        URI uri = URI.create(pg.jdbcUrl().substring("jdbc:".length()));
        database = uri.getPath().substring(1);
        // what a pooler cannot carry, the role has in this database (README "Behind PgBouncer in transaction mode")
        pg.jdbi().useHandle(h -> {
            for (String setting : List.of("search_path = forgeflow", "statement_timeout = '30s'",
                    "lock_timeout = '5s'", "idle_in_transaction_session_timeout = '10s'")) {
                h.execute("ALTER ROLE " + pg.user() + " IN DATABASE " + database + " SET " + setting);
            }
        });
        dir = Files.createTempDirectory("forgeflow-embedded-pgbouncer");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        port = io.forgeflow.adapter.postgres.testing.LoopbackPorts.outsideEphemeralRange();
        Files.writeString(dir.resolve("users.txt"), "\"" + pg.user() + "\" \"" + pg.password() + "\"\n");
        Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n",
                "[databases]",
                database + " = host=" + uri.getHost() + " port=" + uri.getPort() + " dbname=" + database,
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = " + (pg.password().isEmpty() ? "trust" : "plain"),
                "auth_file = " + dir.resolve("users.txt"),
                "pool_mode = transaction",
                "default_pool_size = 1",
                "max_client_conn = 100",
                "ignore_startup_parameters = extra_float_digits",
                "server_reset_query =",
                ""));
        List<String> command = new ArrayList<>(List.of(PGBOUNCER));
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "nobody")); // it refuses to run as root
        }
        command.add(dir.resolve("pgbouncer.ini").toString());
        bouncer = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("pgbouncer.log").toFile()).start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                break;
            } catch (IOException notYet) {
                if (!bouncer.isAlive() || System.nanoTime() > end) {
                    fail("pgbouncer did not start: " + Files.readString(dir.resolve("pgbouncer.log")));
                }
                Thread.sleep(100);
            }
        }
    }

    @AfterAll
    static void stopPgBouncer() throws Exception {
        if (bouncer != null) {
            bouncer.destroy();
            bouncer.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stop() {
        workers.forEach(ForgeFlowWorker::close);
        if (app != null) {
            app.close();
        }
    }

    /** The application's pool, to PgBouncer: no server-side prepared statements (a transaction pooler's rule). */
    HikariDataSource poolThroughPgBouncer() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(throughPgBouncer());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setMaximumPoolSize(10);
        config.setPoolName("application-through-pgbouncer");
        return new HikariDataSource(config);
    }

    static String throughPgBouncer() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?prepareThreshold=0";
    }

    @Test
    void aWorkerThroughTheTransactionPoolerRunsEachJobOnceAndLeavesNoSessionStateOnItsServerConnection()
            throws Exception {
        app = poolThroughPgBouncer();
        Map<String, Integer> executed = new ConcurrentHashMap<>();
        ForgeFlowWorker worker = ForgeFlowWorker.builder().dataSource(app).workerId("bouncer-1").concurrency(4)
                .pollInterval(Duration.ofMillis(100)).heartbeatInterval(Duration.ofSeconds(1))
                .lease(Duration.ofSeconds(4)).drainGrace(Duration.ofSeconds(5)).transactionPooling(true)
                .handler("echo", ctx -> executed.merge(ctx.runId(), 1, Integer::sum))
                .start();
        workers.add(worker);

        List<String> runs = new ArrayList<>();
        try (Connection c = app.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 20; i++) {
                runs.add(ForgeFlowJdbc.enqueue(c, JobRequest.handler("echo-" + i, "echo", null).build()).runId());
            }
            c.commit();
        }
        EmbeddedFixture.await("20 runs succeeded", Duration.ofSeconds(30), () -> pg.jdbi().withHandle(h -> h
                .createQuery("SELECT count(*) FROM runs WHERE status = 'succeeded'").mapTo(Integer.class).one()) == 20);
        assertThat(executed).containsOnlyKeys(runs).allSatisfy((run, times) -> assertThat(times).isOne());

        // the pooler's one server connection, as the next client of the pooler gets it
        try (Connection probe = DriverManager.getConnection(throughPgBouncer(), pg.user(), pg.password());
             Statement st = probe.createStatement()) {
            assertThat(strings(st, "SELECT pg_listening_channels()")).as("channels LISTENed to on the pooler's "
                    + "server connection").isEmpty();
            assertThat(strings(st, "SHOW synchronous_commit")).as("synchronous_commit of the pooler's server "
                    + "connection").containsExactly("on");
            assertThat(strings(st, "SHOW search_path")).containsExactly("forgeflow");
        }
        assertThat(Files.readString(dir.resolve("pgbouncer.log"))).doesNotContain("when not linked");
        // it says how it is woken and how it reaches the database, as nodes do
        String shown = pg.jdbi().withHandle(h -> h.createQuery("SELECT database_pooling || ' ' || wake_ups FROM nodes "
                + "WHERE worker_id = 'bouncer-1'").mapTo(String.class).one());
        assertThat(shown).isEqualTo("transaction polling");
    }

    private static List<String> strings(Statement st, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
