package io.forgeflow.server;

import io.forgeflow.adapter.postgres.PostgresUrls;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each fault of {@link FaultProxy}, seen by a real JDBC connection to PostgreSQL through it. */
class FaultProxyIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final FaultProxy proxy = open();

    @AfterEach
    void close() {
        proxy.close();
    }

    @Test
    void passForwardsStatementsBothWays() throws Exception {
        try (Connection c = connect(0)) {
            assertThat(selectOne(c)).isEqualTo(1);
        }
    }

    @Test
    void delayHoldsEveryChunkBackEitherWay() throws Exception {
        try (Connection c = connect(0)) {
            proxy.delay(Duration.ofMillis(300));
            long began = System.nanoTime();
            selectOne(c);
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
        }
    }

    @Test
    void dropReplyToLetsTheStatementCommitButTheClientNeverHearsOfIt() throws Exception {
        String table = "public.fault_probe_" + System.nanoTime();
        try (Connection c = connect(0)) {
            proxy.dropReplyTo(table);
            assertThatThrownBy(() -> execute(c, "CREATE TABLE " + table + " (id int)")).isInstanceOf(SQLException.class);
        }
        assertThat(proxy.droppedReplies()).isEqualTo(1);
        try (Connection direct = pg.dataSource().getConnection(); Statement s = direct.createStatement();
             ResultSet rs = s.executeQuery("SELECT to_regclass('" + table + "') IS NOT NULL")) {
            rs.next();
            assertThat(rs.getBoolean(1)).as("the statement committed").isTrue();
            s.execute("DROP TABLE " + table);
        }
        try (Connection again = connect(0)) {
            assertThat(selectOne(again)).as("only the one reply is dropped").isEqualTo(1);
        }
    }

    @Test
    void resetCutsOpenConnectionsAndAcceptsNewOnes() throws Exception {
        try (Connection c = connect(0)) {
            selectOne(c);
            proxy.reset();
            assertThatThrownBy(() -> selectOne(c)).isInstanceOf(SQLException.class);
        }
        try (Connection fresh = connect(0)) {
            assertThat(selectOne(fresh)).isEqualTo(1);
        }
    }

    @Test
    void blackholeStallsTheClientUntilItsOwnTimeoutAndPassRestoresNewConnections() throws Exception {
        try (Connection c = connect(1)) {
            selectOne(c);
            proxy.blackhole();
            long began = System.nanoTime();
            assertThatThrownBy(() -> selectOne(c)).isInstanceOf(SQLException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - began)).as("it hung until the socket timeout")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(900));
        }
        proxy.pass();
        try (Connection fresh = connect(0)) {
            assertThat(selectOne(fresh)).isEqualTo(1);
        }
    }

    private Connection connect(int socketTimeoutSeconds) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", pg.user());
        if (!pg.password().isEmpty()) {
            p.setProperty("password", pg.password());
        }
        p.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds));
        return DriverManager.getConnection(proxy.jdbcUrl(pg.databaseName()), p);
    }

    private static int selectOne(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static FaultProxy open() {
        try {
            URI db = URI.create(PostgresUrls.parse(pg.jdbcUrl()).jdbcUrl().substring("jdbc:".length()));
            return new FaultProxy(db.getHost(), db.getPort() < 0 ? 5432 : db.getPort());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
