package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Executor java in SQL: the claim by handler, the handlers registry, enqueue()'s checks, the application's pool. */
class EmbeddedHandlersSqlIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);

    @Nested
    class ClaimByHandler {
        final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), null);

        Run due(String executor, Map<String, Object> payload) {
            return pg.insert(aRun().withExecutor(executor).withPayload(payload).dueAt(Instant.now().minusSeconds(5)));
        }

        @Test
        void aWorkerClaimsOnlyTheRunsOfTheHandlersItNamesAndANodeNoneOfThem() {
            Run alpha = due("java", Map.of("handler", "alpha"));
            Run beta = due("java", Map.of("handler", "beta"));
            Run shell = due("shell", Map.of("command", "true"));

            List<Run> node = queue.claim("node", Set.of("shell", "http", "java"), QueueSelection.ALL, 10, LEASE);
            assertThat(node).extracting(Run::id).containsExactly(shell.id());
            List<Run> embedded = queue.claim("app", Set.of("java:alpha"), QueueSelection.ALL, 10, LEASE);
            assertThat(embedded).extracting(Run::id).containsExactly(alpha.id());
            assertThat(queue.claim("app", Set.of("java:alpha"), QueueSelection.ALL, 10, LEASE)).isEmpty();
            assertThat(queue.claim("other", Set.of("java:beta", "java:gamma"), QueueSelection.ALL, 10, LEASE))
                    .extracting(Run::id).containsExactly(beta.id());
        }

        @Test
        void theNextDueTimeCountsOnlyTheHandlersNamed() {
            pg.insert(aRun().withExecutor("java").withPayload(Map.of("handler", "later"))
                    .dueAt(Instant.now().plusSeconds(3600)));

            assertThat(queue.nextDueIn(Set.of("java:later"), QueueSelection.ALL)).isPresent();
            assertThat(queue.nextDueIn(Set.of("java:other", "java"), QueueSelection.ALL)).isEmpty();
        }
    }

    @Nested
    class Registry {
        final TestClock clock = TestClock.at("2026-03-01T12:00:00Z");
        final PostgresHandlerRegistry registry = new PostgresHandlerRegistry(pg.jdbi(), clock);

        @Test
        void announcedHandlersAreLiveUntilTheyExpireOrAreWithdrawn() {
            registry.announce("w1", Set.of("alpha", "beta"), Duration.ofSeconds(30));
            registry.announce("w2", Set.of("beta"), Duration.ofSeconds(90));
            assertThat(registry.liveHandlers()).containsExactlyInAnyOrder("alpha", "beta");

            clock.advance(Duration.ofSeconds(31));
            assertThat(registry.liveHandlers()).containsExactly("beta");
            registry.withdraw("w2");
            assertThat(registry.liveHandlers()).isEmpty();
        }

        @Test
        void anAnnouncementReplacesTheWorkersNamesAndClearsOtherWorkersRowsExpiredForADay() {
            registry.announce("w1", Set.of("alpha", "beta"), Duration.ofSeconds(30));
            registry.announce("killed", Set.of("gamma"), Duration.ofSeconds(30));
            registry.announce("w1", Set.of("beta"), Duration.ofSeconds(30));
            assertThat(registry.liveHandlers()).containsExactlyInAnyOrder("beta", "gamma");

            clock.advance(Duration.ofDays(2));
            registry.announce("w1", Set.of("beta"), Duration.ofSeconds(30));
            List<String> rows = pg.jdbi().withHandle(h -> h.createQuery("SELECT worker_id || '/' || name FROM handlers "
                    + "ORDER BY 1").mapTo(String.class).list());
            assertThat(rows).containsExactly("w1/beta");
        }

        @Test
        void aTtlMustBePositive() {
            assertThatThrownBy(() -> registry.announce("w1", Set.of("a"), Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl must be positive");
        }
    }

    @Nested
    class Enqueue {
        @BeforeEach
        void javaIsKnown() {
            new PostgresExecutorCatalog(pg.jdbi()).record(List.of("java", "shell"), "app");
        }

        Connection app() throws SQLException {
            Properties properties = new Properties();
            properties.setProperty("user", pg.user());
            properties.setProperty("password", pg.password());
            return DriverManager.getConnection(pg.jdbcUrl(), properties);
        }

        @Test
        void aHandlerJobIsStoredWhetherOrNotAWorkerHasItsHandler() throws Exception {
            try (Connection c = app(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT * FROM forgeflow.enqueue(name => 'r', executor => 'java', "
                         + "payload => '{\"handler\": \"nobody-has-it\", \"args\": {\"order_id\": 1}}')")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBoolean("created")).isTrue();
            }
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "{\"args\": {}}                          | payload.handler | payload.handler is required by the java executor",
                "{\"handler\": 5}                        | payload.handler | payload.handler must be a string",
                "{\"handler\": \"two words\"}            | payload.handler | payload.handler must be 1 to 100 letters",
                "{\"handler\": \"h\", \"args\": [1]}     | payload.args    | payload.args must be an object",
                "{\"handler\": \"h\", \"arguments\": {}} | payload.arguments | payload.arguments is not a field of the java executor"})
        void aMalformedHandlerPayloadIsRefusedWithTheFieldAndHowToFixIt(String payload, String field, String message)
                throws Exception {
            try (Connection c = app(); PreparedStatement st = c.prepareStatement(
                    "SELECT * FROM forgeflow.enqueue(name => 'r', executor => 'java', payload => CAST(? AS jsonb))")) {
                st.setString(1, payload);
                assertThatThrownBy(st::executeQuery).isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getSQLState()).isEqualTo("22023");
                    assertThat(e.getMessage()).contains(message);
                    assertThat(((org.postgresql.util.PSQLException) e).getServerErrorMessage().getColumn()).isEqualTo(field);
                });
            }
        }
    }

    @Nested
    class ApplicationsPool {
        /** One physical connection handed out again and again, as a pool with one connection would. */
        Connection physical;

        javax.sql.DataSource onePool() throws SQLException {
            Properties properties = new Properties();
            properties.setProperty("user", pg.user());
            properties.setProperty("password", pg.password());
            physical = DriverManager.getConnection(pg.jdbcUrl(), properties);
            physical.setAutoCommit(false); // an application pool that hands out transactions
            InvocationHandler keepOpen = (proxy, method, args) -> method.getName().equals("close") ? null
                    : method.invoke(physical, args);
            return DedicatedConnections.dataSource(() -> (Connection) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Connection.class}, keepOpen));
        }

        String settings() throws SQLException {
            try (Statement st = physical.createStatement(); ResultSet rs = st.executeQuery(
                    "SELECT current_setting('search_path') || ' | ' || current_setting('statement_timeout') || ' | ' "
                            + "|| current_setting('synchronous_commit') || ' | ' || current_setting('application_name') "
                            + "|| ' | ' || (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())"
                            + " || ' | ' || (SELECT count(*) FROM pg_listening_channels())")) {
                rs.next();
                return rs.getString(1);
            } finally {
                physical.rollback();
            }
        }

        @Test
        void aBorrowedConnectionRunsForgeFlowsStatementsInItsSchemaAndGoesBackAsItCame() throws Exception {
            ApplicationPool pool = new ApplicationPool(onePool(), "forgeflow", new SessionLimits(Duration.ofSeconds(7),
                    Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ZERO));
            String before = settings();

            try (Connection c = pool.dataSource().getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT current_setting('search_path'), current_setting('statement_timeout'), "
                         + "(SELECT count(*) FROM runs)")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("forgeflow");
                assertThat(rs.getString(2)).isEqualTo("7s");
                assertThat(c.getAutoCommit()).isTrue();
            }
            assertThat(settings()).isEqualTo(before);
            assertThat(physical.getAutoCommit()).isFalse();
            physical.close();
        }

        @Test
        void aHeldSessionStopsListeningAndLetsGoOfItsLocksWhenGivenBack() throws Exception {
            ApplicationPool pool = new ApplicationPool(onePool(), "forgeflow", new SessionLimits(Duration.ofSeconds(7),
                    Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ZERO));
            String before = settings();

            try (Connection c = pool.leaderSessions(Duration.ofSeconds(10)).get(); Statement st = c.createStatement()) {
                st.execute("LISTEN forgeflow_due");
                st.execute("SET synchronous_commit = off");
                st.execute("SELECT pg_try_advisory_lock(" + AdvisoryLockLeaderElection.LOCK_KEY + ")");
                try (ResultSet rs = st.executeQuery("SELECT current_setting('idle_session_timeout')")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo("10s");
                }
            }
            assertThat(settings()).isEqualTo(before).endsWith("| 0 | 0");
            physical.close();
        }
    }
}
