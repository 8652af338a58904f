package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The session limits as PostgreSQL applies them to a session opened with them. */
class SessionLimitsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final SessionLimits LIMITS = new SessionLimits(Duration.ofMillis(300), Duration.ofMillis(200),
            Duration.ofMillis(400), Duration.ZERO);

    Supplier<Connection> sessions(SessionLimits limits) {
        return DedicatedConnections.to(pg.jdbcUrl(), pg.user(), pg.password(), "limits test", PostgresSchema.DEFAULT, limits);
    }

    @Test
    void aStatementLongerThanTheStatementTimeoutIsCancelled() throws Exception {
        try (Connection c = sessions(LIMITS).get(); Statement st = c.createStatement()) {
            assertThatThrownBy(() -> st.execute("SELECT pg_sleep(3)"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("57014"))
                    .satisfies(e -> assertThat(SessionLimits.isLimitHit(((SQLException) e).getSQLState())).isTrue());
            assertThat(setting(st, "lock_timeout")).isEqualTo("200ms");
            assertThat(setting(st, "idle_in_transaction_session_timeout")).isEqualTo("400ms");
            assertThat(setting(st, "idle_session_timeout")).as("off unless asked for").isEqualTo("0");
        }
    }

    @Test
    void aLockWaitLongerThanTheLockTimeoutFails() throws Exception {
        try (Connection holder = pg.connectionSupplier().get(); Connection waiter = sessions(LIMITS).get();
             Statement hold = holder.createStatement(); Statement wait = waiter.createStatement()) {
            hold.execute("SELECT pg_advisory_lock(4242)");
            assertThatThrownBy(() -> wait.execute("SELECT pg_advisory_lock(4242)"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("55P03"));
        }
    }

    @Test
    void aTransactionLeftOpenAndSilentIsEndedByTheServer() throws Exception {
        try (Connection c = sessions(LIMITS).get(); Connection watcher = pg.connectionSupplier().get()) {
            c.setAutoCommit(false);
            int pid;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            Conditions.awaitTrue(() -> !backendLives(watcher, pid), Duration.ofSeconds(10),
                    "the server ends the idle transaction's session");
            assertThat(isClosedByServer(c)).isTrue();
        }
    }

    @Test
    void aSilentLeaderLosesItsSessionAndTheLockAndStepsDownWhenItWakes() {
        SessionLimits leaderLimits = LIMITS.withIdleSession(Duration.ofSeconds(3));
        AdvisoryLockLeaderElection leader = new AdvisoryLockLeaderElection(sessions(leaderLimits));
        AdvisoryLockLeaderElection standby = new AdvisoryLockLeaderElection(sessions(LIMITS));
        try {
            assertThat(leader.campaign()).isTrue();
            assertThat(standby.campaign()).isFalse();

            // the leader says nothing (as a stopped JVM): the server ends its session, and the lock goes with it
            Conditions.awaitTrue(standby::campaign, Duration.ofSeconds(10), "the standby leads");

            assertThat(leader.campaign()).as("the woken leader's first campaign").isFalse();
            assertThat(leader.isLeader()).isFalse();
            assertThat(standby.campaign()).isTrue();
        } finally {
            leader.close();
            standby.close();
        }
    }

    @Test
    void aLeaderThatConfirmsItsLockMoreOftenThanTheIdleLimitKeepsLeading() throws Exception {
        SessionLimits leaderLimits = LIMITS.withIdleSession(Duration.ofSeconds(3));
        AdvisoryLockLeaderElection leader = new AdvisoryLockLeaderElection(sessions(leaderLimits));
        AdvisoryLockLeaderElection standby = new AdvisoryLockLeaderElection(sessions(leaderLimits));
        try {
            assertThat(leader.campaign()).isTrue();
            long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
            while (System.nanoTime() < end) {
                assertThat(leader.campaign()).isTrue();
                assertThat(standby.campaign()).isFalse();
                Thread.sleep(200); // the leader's tick: it confirms the lock at this pace
            }
        } finally {
            leader.close();
            standby.close();
        }
    }

    private static boolean backendLives(Connection watcher, int pid) {
        try (Statement st = watcher.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
            rs.next();
            return rs.getInt(1) > 0;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean isClosedByServer(Connection c) {
        try (Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            return false;
        } catch (SQLException e) {
            return true;
        }
    }

    private static String setting(Statement st, String name) throws SQLException {
        try (ResultSet rs = st.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
