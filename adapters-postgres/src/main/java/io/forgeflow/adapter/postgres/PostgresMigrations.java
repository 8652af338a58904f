package io.forgeflow.adapter.postgres;

import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.analytics.configuration.AnalyticsArgs;
import liquibase.changelog.ChangeLogParameters;
import liquibase.changelog.DatabaseChangeLog;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.parser.ChangeLogParserFactory;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.resource.ResourceAccessor;
import liquibase.ui.LoggerUIService;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies and checks ForgeFlow's schema with Liquibase, from the same root changelog Dropwizard's MigrationsBundle
 * uses ({@value #CHANGELOG} on the classpath). Concurrent migrations by nodes starting together are serialised by
 * an advisory lock. Liquibase's anonymous analytics are switched off, and its console output and update summary go to its log.
 */
public final class PostgresMigrations {
    /** The root changelog, a classpath resource. */
    public static final String CHANGELOG = "migrations.xml";

    private static volatile List<ChangeSetKey> expected;

    private PostgresMigrations() {
    }

    /**
     * Applies every pending changeset. Idempotent: a migrated database is left as it is. Nodes that start together
     * on a fresh database are serialised by a session-level advisory lock ({@value #MIGRATION_LOCK_KEY}) held on a
     * connection of its own for the whole migration: Liquibase's own lock table cannot protect its creation, and
     * two nodes creating it at once fail with a duplicate-key error.
     */
    public static void migrate(DataSource dataSource) {
        try (Connection lock = dataSource.getConnection(); Statement st = lock.createStatement()) {
            // a migration (and the wait for another node's) may outlast the session limits: lifted here, reset after
            st.execute(UNLIMITED);
            st.execute("SELECT pg_advisory_lock(" + MIGRATION_LOCK_KEY + ")");
            try {
                inLiquibase(dataSource, "migrate the database", database -> {
                    new CommandScope(UpdateCommandStep.COMMAND_NAME)
                            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                            .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                            .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                            .execute();
                    return null;
                });
            } finally {
                st.execute("SELECT pg_advisory_unlock(" + MIGRATION_LOCK_KEY + ")");
                st.execute(LIMITED);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not take the migration lock: " + e.getMessage(), e);
        }
    }

    private static final String UNLIMITED = "SET statement_timeout = 0; SET lock_timeout = 0";
    private static final String LIMITED = "RESET statement_timeout; RESET lock_timeout";

    /** The advisory-lock key that serialises migrations ("FFMigrate"), distinct from the scheduler's. */
    public static final long MIGRATION_LOCK_KEY = 0x4646_4D69_6772_6174L;

    /** Whether no changeset is pending (false for an empty database). Creates nothing; one query. */
    public static boolean isMigrated(DataSource dataSource) {
        return pendingChangeSets(dataSource).isEmpty();
    }

    /**
     * The ids of the changesets of {@value #CHANGELOG} that the database has not applied, in changelog order. Reads
     * Liquibase's {@code databasechangelog} table (an empty database has none: everything is pending) and creates
     * nothing. The changelog is parsed once per JVM.
     */
    public static List<String> pendingChangeSets(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return pendingChangeSets(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the migration status: " + e.getMessage(), e);
        }
    }

    /** As {@link #pendingChangeSets(DataSource)}, on a connection the caller holds (left open). */
    public static List<String> pendingChangeSets(Connection connection) {
        List<ChangeSetKey> expected = expectedChangeSets();
        Set<ChangeSetKey> applied = appliedChangeSets(connection);
        return expected.stream().filter(key -> !applied.contains(key)).map(ChangeSetKey::id).toList();
    }

    /** Liquibase identifies a changeset by id, author and the changelog path it stores. */
    private record ChangeSetKey(String id, String author, String path) {
    }

    private static List<ChangeSetKey> expectedChangeSets() {
        List<ChangeSetKey> keys = expected;
        if (keys == null) {
            try {
                keys = Scope.child(scope(), () -> {
                    ResourceAccessor accessor = Scope.getCurrentScope().getResourceAccessor();
                    DatabaseChangeLog changeLog = ChangeLogParserFactory.getInstance().getParser(CHANGELOG, accessor)
                            .parse(CHANGELOG, new ChangeLogParameters(), accessor);
                    return changeLog.getChangeSets().stream()
                            .map(cs -> new ChangeSetKey(cs.getId(), cs.getAuthor(), cs.getStoredFilePath()))
                            .toList();
                });
            } catch (Exception e) {
                throw new IllegalStateException("could not read the changelog " + CHANGELOG + ": " + e.getMessage(), e);
            }
            expected = keys;
        }
        return keys;
    }

    private static Set<ChangeSetKey> appliedChangeSets(Connection connection) {
        Set<ChangeSetKey> applied = new HashSet<>();
        try (Statement statement = connection.createStatement()) {
            try (ResultSet exists = statement.executeQuery("SELECT to_regclass('databasechangelog') IS NOT NULL")) {
                exists.next();
                if (!exists.getBoolean(1)) {
                    return applied;
                }
            }
            try (ResultSet rs = statement.executeQuery("SELECT id, author, filename FROM databasechangelog")) {
                while (rs.next()) {
                    applied.add(new ChangeSetKey(rs.getString(1), rs.getString(2), rs.getString(3)));
                }
            }
            return applied;
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the migration status: " + e.getMessage(), e);
        }
    }

    private interface LiquibaseWork<T> {
        T run(Database database) throws Exception;
    }

    private static <T> T inLiquibase(DataSource dataSource, String what, LiquibaseWork<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            try (Statement st = connection.createStatement()) {
                st.execute(UNLIMITED);
            }
            try {
                return runInScope(connection, work);
            } finally {
                // Liquibase switches auto-commit off; a pooled connection must go back as it came
                if (!connection.isClosed() && connection.getAutoCommit() != autoCommit) {
                    connection.setAutoCommit(autoCommit);
                }
                if (!connection.isClosed()) {
                    try (Statement st = connection.createStatement()) {
                        st.execute(LIMITED);
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not " + what + ": " + e.getMessage(), e);
        }
    }

    private static <T> T runInScope(Connection connection, LiquibaseWork<T> work) throws Exception {
        Database database = DatabaseFactory.getInstance()
                .findCorrectDatabaseImplementation(new JdbcConnection(connection));
        return Scope.child(scope(), () -> work.run(database));
    }

    private static Map<String, Object> scope() {
        return Map.of(
                Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(PostgresMigrations.class.getClassLoader()),
                Scope.Attr.ui.name(), new LoggerUIService(),
                AnalyticsArgs.ENABLED.getKey(), false);
    }
}
