package io.forgeflow.adapter.postgres;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.argument.AbstractArgumentFactory;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.config.ConfigRegistry;
import org.jdbi.v3.core.generic.GenericType;
import org.jdbi.v3.core.extension.ExtensionMethod;
import org.jdbi.v3.core.mapper.ColumnMapper;
import org.jdbi.v3.core.statement.SqlLogger;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.statement.StatementContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Makes the {@link Jdbi} every adapter of this module takes: SqlObjects, the PostgreSQL plugin, {@link Instant}s bound
 * as {@code timestamptz}, executor payloads ({@code Map<String, Object>}) bound to and read from {@code jsonb} with
 * Jackson, and row mappers for the domain records ({@code Job}, {@code Run}, {@code Attempt}, node statuses).
 */
public final class PostgresJdbi {

    /** The type of executor payloads, as registered for {@code jsonb} columns. */
    public static final GenericType<Map<String, Object>> PAYLOAD = new GenericType<>() {
    };

    private PostgresJdbi() {
    }

    /**
     * The pools of the Jdbis made here, for the statements that run on plain JDBC ({@link JdbcStatements}) over the same
     * pool. Weak keys: a Jdbi nobody holds any more takes its entry with it.
     */
    private static final Map<Jdbi, DataSource> DATA_SOURCES = Collections.synchronizedMap(new WeakHashMap<>());

    /** A Jdbi over {@code dataSource} (the server's pool) with this module's plugins and mappings. */
    public static Jdbi create(DataSource dataSource) {
        // a statement made for a caller with a deadline (gRPC) is bounded by it; others are the pool's as they are
        DataSource bounded = new DeadlineBoundDataSource(dataSource);
        Jdbi jdbi = Jdbi.create(bounded);
        DATA_SOURCES.put(jdbi, bounded);
        jdbi.installPlugin(new SqlObjectPlugin());
        jdbi.installPlugin(new PostgresPlugin());
        jdbi.registerArgument(new InstantArgumentFactory());
        jdbi.registerArgument(new PayloadArgumentFactory());
        Rows.register(jdbi);
        jdbi.getConfig(SqlStatements.class).setSqlLogger(new LimitHitLogger());
        jdbi.registerColumnMapper(PAYLOAD, (ColumnMapper<Map<String, Object>>) (rs, column, ctx) ->
                PayloadJson.read(rs.getString(column)));
        return jdbi;
    }

    /** The pool a Jdbi made by {@link #create} takes its connections from; null for a Jdbi made elsewhere. */
    static DataSource dataSourceOf(Jdbi jdbi) {
        return DATA_SOURCES.get(jdbi);
    }

    /** Binds an {@link Instant} as a {@code timestamptz} (an offset date-time in UTC), never as a zone-less timestamp. */
    private static final class InstantArgumentFactory extends AbstractArgumentFactory<Instant> {
        InstantArgumentFactory() {
            super(Types.TIMESTAMP_WITH_TIMEZONE);
        }

        @Override
        protected Argument build(Instant value, ConfigRegistry config) {
            return (position, statement, ctx) -> statement.setObject(position, value.atOffset(ZoneOffset.UTC));
        }
    }

    /** Binds a payload map as {@code jsonb}. */
    @SuppressWarnings("rawtypes")
    private static final class PayloadArgumentFactory extends AbstractArgumentFactory<Map> {
        PayloadArgumentFactory() {
            super(Types.OTHER);
        }

        @Override
        protected Argument build(Map value, ConfigRegistry config) {
            return (position, statement, ctx) -> statement.setObject(position, PayloadJson.jsonb(value));
        }
    }

    /**
     * Logs a statement stopped by a {@link SessionLimits session limit} with its name (the SqlObject method, such as
     * {@code RunSql.claimDue}), at WARN; the exception still reaches the loop that owns the statement, which retries.
     */
    static final class LimitHitLogger implements SqlLogger {
        private static final Logger LOG = LoggerFactory.getLogger("io.forgeflow.adapter.postgres.SessionLimits");

        @Override
        public void logException(StatementContext context, SQLException ex) {
            if (SessionLimits.isLimitHit(ex.getSQLState())) {
                LOG.warn("statement {} stopped by a session limit (SQLSTATE {}): {}; its loop retries it",
                        nameOf(context), ex.getSQLState(), ex.getMessage());
            }
        }

        static String nameOf(StatementContext context) {
            ExtensionMethod method = context.getExtensionMethod();
            if (method != null) {
                return method.getType().getSimpleName() + "." + method.getMethod().getName();
            }
            String sql = context.getRawSql();
            if (sql == null) {
                return "(unnamed)";
            }
            String flat = sql.strip().replaceAll("\\s+", " ");
            return "'" + (flat.length() > 60 ? flat.substring(0, 60) + "..." : flat) + "'";
        }
    }
}
