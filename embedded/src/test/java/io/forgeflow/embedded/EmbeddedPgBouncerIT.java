package io.forgeflow.embedded;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestPgBouncer;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An embedded worker whose application pool goes through PgBouncer in transaction mode (Debian's pgbouncer, started
 * here on loopback with ONE server connection, so that every client of the pooler shares one PostgreSQL session and
 * sees whatever session state another left on it): the worker runs its jobs once each and leaves no session state on
 * the pooler's server connection (no LISTEN, whose notifications PgBouncer then drops with "got packet 'A' from server
 * when not linked", no {@code synchronous_commit = off} for the next client's commits). Issue 46's scale test runs
 * 500 such workers.
 */
class EmbeddedPgBouncerIT {

    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static TestPgBouncer pgbouncer;
    static int port;
    static String database;

    HikariDataSource app;
    final List<ForgeFlowWorker> workers = new ArrayList<>();

    @BeforeAll
    static void startPgBouncer() throws Exception {
        TestPgBouncer.requireOrSkip();
        database = URI.create(pg.jdbcUrl().substring("jdbc:".length())).getPath().substring(1);
        pgbouncer = TestPgBouncer.start(pg, 1, 100, false, "10s");
        port = pgbouncer.port();
    }

    @AfterAll
    static void stopPgBouncer() throws Exception {
        if (pgbouncer != null) {
            pgbouncer.close();
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
        assertThat(pgbouncer.log()).doesNotContain("when not linked");
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
