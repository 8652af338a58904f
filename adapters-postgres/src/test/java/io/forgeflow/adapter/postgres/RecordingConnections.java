package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/** A supplier of dedicated connections that keeps every connection it hands out, so a test can look at its session. */
final class RecordingConnections implements Supplier<Connection> {
    final List<Connection> handedOut = new CopyOnWriteArrayList<>();
    private final PostgresExtension pg;

    RecordingConnections(PostgresExtension pg) {
        this.pg = pg;
    }

    @Override
    public Connection get() {
        Connection connection = pg.connectionSupplier().get();
        handedOut.add(connection);
        return connection;
    }

    /**
     * The session's {@code synchronous_commit}, followed by {@code ", set by the session"} when the session set it
     * itself (a test server may default to off, so the value alone does not tell).
     */
    static String synchronousCommit(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT setting || CASE WHEN source = 'session' "
                     + "THEN ', set by the session' ELSE '' END FROM pg_settings WHERE name = 'synchronous_commit'")) {
            result.next();
            return result.getString(1);
        }
    }
}
