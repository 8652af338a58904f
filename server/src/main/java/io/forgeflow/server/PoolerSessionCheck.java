package io.forgeflow.server;

import io.forgeflow.adapter.postgres.SessionLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Behind a transaction pooler the pool's sessions cannot be given ForgeFlow's schema and limits at connect time (the
 * pooler keeps no session per client), so they must be the database's or the role's. Checked once at start, through
 * the pool: a session that does not reach the schema, or has no statement or lock timeout where the node wants one,
 * stops the node with the SQL that fixes it; other differences are logged.
 */
final class PoolerSessionCheck {
    private static final Logger LOG = LoggerFactory.getLogger(PoolerSessionCheck.class);
    private static final String READ = "SELECT current_schema(), current_database(), current_user, "
            + "(SELECT setting::bigint FROM pg_settings WHERE name = 'statement_timeout'), "
            + "(SELECT setting::bigint FROM pg_settings WHERE name = 'lock_timeout'), "
            + "(SELECT setting::bigint FROM pg_settings WHERE name = 'idle_in_transaction_session_timeout')";

    private PoolerSessionCheck() {
    }

    /** What a session through the pooler has. */
    record Found(String schema, String database, String user, long statementMillis, long lockMillis,
                 long idleInTransactionMillis) {
    }

    static void check(DataSource pool, ForgeFlowSettings settings) {
        Found found;
        try (Connection c = pool.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(READ)) {
            rs.next();
            found = new Found(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                    rs.getLong(6));
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the session settings through FORGEFLOW_DATABASE_URL (a "
                    + "transaction pooler, since FORGEFLOW_DATABASE_SESSION_URL is set): " + e.getMessage(), e);
        }
        List<String> refusals = refusals(found, settings.databaseSchema, DatabaseSettings.limitsOf(settings));
        String fix = fix(found, settings.databaseSchema, DatabaseSettings.limitsOf(settings));
        if (!refusals.isEmpty()) {
            throw new IllegalStateException("sessions through the transaction pooler at FORGEFLOW_DATABASE_URL "
                    + String.join("; ", refusals) + ". A pooler cannot carry a node's session settings: set them on "
                    + "the role, then let the pooler open new server connections (PgBouncer: RECONNECT, or a "
                    + "restart):\n" + fix);
        }
        if (differs(found, DatabaseSettings.limitsOf(settings))) {
            LOG.warn("sessions through the transaction pooler have statement_timeout {} ms, lock_timeout {} ms and "
                            + "idle_in_transaction_session_timeout {} ms, not this node's settings; to match them:\n{}",
                    found.statementMillis(), found.lockMillis(), found.idleInTransactionMillis(), fix);
        }
    }

    /** Why a node must not run on such sessions; empty when it may. */
    static List<String> refusals(Found found, String schema, SessionLimits wanted) {
        List<String> why = new ArrayList<>();
        if (!schema.equals(found.schema())) {
            why.add("reach the schema " + (found.schema() == null ? "(none)" : found.schema()) + ", not "
                    + schema + " where ForgeFlow's tables are");
        }
        if (found.statementMillis() == 0 && !wanted.statementTimeout().isZero()) {
            why.add("have no statement_timeout (FORGEFLOW_STATEMENT_TIMEOUT is " + wanted.statementTimeout().toMillis()
                    + " ms)");
        }
        if (found.lockMillis() == 0 && !wanted.lockTimeout().isZero()) {
            why.add("have no lock_timeout (FORGEFLOW_LOCK_TIMEOUT is " + wanted.lockTimeout().toMillis() + " ms)");
        }
        return why;
    }

    static boolean differs(Found found, SessionLimits wanted) {
        return found.statementMillis() != wanted.statementTimeout().toMillis()
                || found.lockMillis() != wanted.lockTimeout().toMillis()
                || found.idleInTransactionMillis() != wanted.idleInTransaction().toMillis();
    }

    /** The SQL that gives the pooler's sessions this node's schema and limits (run it as the role or a superuser). */
    static String fix(Found found, String schema, SessionLimits wanted) {
        String target = "ALTER ROLE " + quote(found.user()) + " IN DATABASE " + quote(found.database()) + " SET ";
        return target + "search_path = " + quote(schema) + ";\n"
                + target + "statement_timeout = '" + wanted.statementTimeout().toMillis() + "ms';\n"
                + target + "lock_timeout = '" + wanted.lockTimeout().toMillis() + "ms';\n"
                + target + "idle_in_transaction_session_timeout = '" + wanted.idleInTransaction().toMillis() + "ms';";
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
