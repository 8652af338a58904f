package io.forgeflow.adapter.postgres;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.Supplier;

/**
 * An application's pool behind a transaction pooler (PgBouncer in transaction mode), as the embedded worker uses it
 * with {@code transactionPooling(true)}: no session can be given a setting, so the role must carry ForgeFlow's schema,
 * and no migration can run through it.
 */
public final class PooledSessions {
    private PooledSessions() {
    }

    /**
     * Refuses a pool whose sessions do not use {@code schema} as their {@code search_path}, or a database with
     * migrations pending; each message says how to fix it.
     */
    public static void requireReady(DataSource dataSource, String schema) {
        String current;
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT current_schema()")) {
            rs.next();
            current = rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not reach the database through the application's pool: "
                    + e.getMessage(), e);
        }
        if (!schema.equals(current)) {
            throw new IllegalStateException("transactionPooling(true): sessions through the pooler use schema "
                    + current + ", not " + schema + ", and a transaction pooler cannot carry a session setting; give "
                    + "the role its schema in the database: ALTER ROLE <role> IN DATABASE <database> SET search_path = "
                    + schema + " (README \"Behind PgBouncer in transaction mode\")");
        }
        List<String> pending = PostgresMigrations.pendingChangeSets(dataSource, schema);
        if (!pending.isEmpty()) {
            throw new IllegalStateException("transactionPooling(true): the database is not migrated (" + pending.size()
                    + " changesets pending, first " + pending.get(0) + ") and migrations cannot run through a "
                    + "transaction pooler: run `java -jar forgeflow.jar db migrate` once with FORGEFLOW_DATABASE_URL "
                    + "pointing at PostgreSQL itself, or start one worker without transactionPooling on a direct pool");
        }
    }

    /** Connections of the application's pool, taken as they come (for a NOTIFY sender that keeps no session state). */
    public static Supplier<Connection> borrowing(DataSource dataSource) {
        return () -> {
            try {
                return dataSource.getConnection();
            } catch (SQLException e) {
                throw new IllegalStateException("could not borrow a connection from the application's pool: "
                        + e.getMessage(), e);
            }
        };
    }
}
