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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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

    private static final Logger LOG = LoggerFactory.getLogger(PostgresMigrations.class);

    private static volatile List<ChangeSetKey> expected;

    private PostgresMigrations() {
    }

    /** Applies every pending changeset in the default schema ({@value PostgresSchema#DEFAULT}); see {@link #migrate(DataSource, String)}. */
    public static void migrate(DataSource dataSource) {
        migrate(dataSource, PostgresSchema.DEFAULT);
    }

    /**
     * Applies every pending changeset in {@code schema}, creating it if need be; an install of an earlier release in
     * {@code public} is first moved there ({@link #moveFromPublic}). Idempotent: a migrated database is left as it
     * is. Liquibase runs with {@code search_path} set to the schema alone, whatever the pool's sessions use. Nodes
     * that start together on a fresh database are serialised by a session-level advisory lock
     * ({@value #MIGRATION_LOCK_KEY}) held on a connection of its own for the whole migration: Liquibase's own lock
     * table cannot protect its creation, and two nodes creating it at once fail with a duplicate-key error.
     *
     * <p>A changeset waits for its table locks {@value #LOCK_TRY} at a time: an ALTER TABLE or CREATE INDEX that
     * waited for an application's open transaction would queue every other session's access to that table behind it
     * and stall the cluster. A changeset that could not get a lock is rolled back and tried again after 200-500 ms,
     * letting the others through, for up to {@link #LOCK_PATIENCE}; then the migration fails naming the oldest
     * transactions that hold the schema's tables (nothing of that changeset is applied).
     *
     * <p>A database a newer release has migrated (it records changesets this release does not have) is left as it
     * is: this release's function files differ from the newer ones, and re-running them would put older functions
     * back under the newer nodes of a rolling upgrade.
     */
    public static void migrate(DataSource dataSource, String schema) {
        migrate(dataSource, schema, LOCK_PATIENCE);
    }

    /** How long a migration keeps trying for a lock a transaction holds, before it fails. */
    static final Duration LOCK_PATIENCE = Duration.ofMinutes(10);
    /** The longest a migration's statement waits for one lock at a time. */
    static final String LOCK_TRY = "100ms";

    static void migrate(DataSource dataSource, String schema, Duration patience) {
        PostgresSchema.require(schema);
        if (SchemaRelease.migratedByThisRelease(dataSource, schema)) {
            LOG.info("the schema {} is as this release's migrations left it (release {}): Liquibase not run", schema,
                    SchemaRelease.fingerprint().substring(0, 12));
            return;
        }
        try (Connection lock = dataSource.getConnection(); Statement st = lock.createStatement()) {
            // a migration (and the wait for another node's) may outlast the session limits, and on a loaded machine
            // pause between the statements of a transaction for longer than a node allows: lifted here, reset after
            st.execute(UNLIMITED);
            st.execute("SELECT pg_advisory_lock(" + MIGRATION_LOCK_KEY + ")");
            try {
                prepareSchema(lock, schema);
                List<String> newer = newerChangeSets(lock, schema);
                if (!newer.isEmpty()) {
                    // a newer release migrated this database: re-running this release's changed function files
                    // (runOnChange) would put its older functions back under the newer nodes
                    LOG.warn("not migrating: the database was migrated by a newer release ({} changesets this "
                            + "release does not know, first {}); this node runs on its schema as it is",
                            newer.size(), newer.get(0));
                    return;
                }
                long deadline = System.nanoTime() + patience.toNanos();
                while (true) {
                    try {
                        inLiquibase(dataSource, schema, "migrate the database", LOCK_TRY, database -> {
                            new CommandScope(UpdateCommandStep.COMMAND_NAME)
                                    .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                                    .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                                    .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT,
                                            UpdateSummaryOutputEnum.LOG)
                                    .execute();
                            return null;
                        });
                        break;
                    } catch (IllegalStateException e) {
                        if (!waitedForALock(e)) {
                            throw e;
                        }
                        if (System.nanoTime() - deadline > 0) {
                            throw new IllegalStateException("could not migrate the database: a table it changes stayed "
                                    + "locked for " + patience.toSeconds() + " s by another transaction; end or commit "
                                    + "it, then start again (nothing of the waiting change was applied). Oldest "
                                    + "transactions holding " + schema + "'s tables: " + holders(lock, schema), e);
                        }
                        pause();
                    }
                }
                pinSearchPaths(lock, schema);
                SchemaRelease.record(lock, schema);
            } finally {
                st.execute("SELECT pg_advisory_unlock(" + MIGRATION_LOCK_KEY + ")");
                st.execute(LIMITED);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare the schema " + schema + " or take the migration lock: "
                    + e.getMessage(), e);
        }
    }

    interface SchemaWork<T> {
        T run(Connection connection, Statement statement) throws SQLException;
    }

    /**
     * {@code work} in a transaction of its own with {@code schema} alone on the search path, committed if
     * {@code commit}, else rolled back; the connection's auto-commit is left as it came.
     */
    static <T> T inSchema(Connection connection, String schema, boolean commit, SchemaWork<T> work)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        boolean committed = false;
        try (PreparedStatement path = connection.prepareStatement("SELECT set_config('search_path', ?, true)");
             Statement statement = connection.createStatement()) {
            path.setString(1, schema);
            path.execute();
            T result = work.run(connection, statement);
            if (commit) {
                connection.commit();
                committed = true;
            }
            return result;
        } finally {
            if (!committed) {
                connection.rollback();
            }
            connection.setAutoCommit(autoCommit);
        }
    }

    /** Binds the schema for {@link #PREPARE_SCHEMA} and {@link #PIN_SEARCH_PATHS}, for the current transaction. */
    private static final String BIND_SCHEMA = "SELECT set_config('forgeflow.schema', ?, true)";

    /**
     * Creates the schema if it is missing, then moves an install of the release before schemas (Liquibase's tables and
     * ForgeFlow's in {@code public}) into it: the tables (with their indexes, constraints and owned sequences) and the
     * functions named {@code forgeflow_*}. It moves only when {@code public.databasechangelog} records ForgeFlow's
     * first changeset and the schema has no Liquibase table yet; an application's own tables in {@code public} stay.
     * Liquibase then finds its history in the schema and applies only what is new.
     */
    private static final String PREPARE_SCHEMA = """
            DO $$
            DECLARE
                s text := current_setting('forgeflow.schema');
                t text;
                f record;
                ours boolean;
            BEGIN
                EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', s);
                IF s = 'public' OR to_regclass('public.databasechangelog') IS NULL OR to_regclass('public.jobs') IS NULL
                   OR to_regclass(format('%I.databasechangelog', s)) IS NOT NULL THEN
                    RETURN;
                END IF;
                EXECUTE 'SELECT EXISTS (SELECT 1 FROM public.databasechangelog WHERE id = ''0001-jobs'' AND author = ''forgeflow'')'
                    INTO ours;
                IF NOT ours THEN
                    RETURN;
                END IF;
                FOREACH t IN ARRAY ARRAY['databasechangelog', 'databasechangeloglock', 'jobs', 'runs', 'run_attempts',
                                         'nodes', 'queues', 'queue_starts'] LOOP
                    IF to_regclass('public.' || t) IS NOT NULL THEN
                        EXECUTE format('ALTER TABLE public.%I SET SCHEMA %I', t, s);
                    END IF;
                END LOOP;
                FOR f IN SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args
                         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                         WHERE n.nspname = 'public' AND p.proname LIKE 'forgeflow\\_%' LOOP
                    EXECUTE format('ALTER FUNCTION public.%I(%s) SET SCHEMA %I', f.proname, f.args, s);
                END LOOP;
            END
            $$""";

    /**
     * Fixes the {@code search_path} of the functions applications call ({@code enqueue} and its helpers; not
     * {@code forgeflow_uuid_v7}, whose standard SQL body was bound when it was created) and of the trigger functions
     * to the schema, so that they find ForgeFlow's tables from any session and no caller's schema
     * can shadow them. {@code enqueue} runs with its owner's rights ({@code SECURITY DEFINER}) and is executable only
     * by the roles granted it: an application needs {@code USAGE} on the schema and {@code EXECUTE} on it, and no
     * right on any table (so it cannot rewrite a job's payload past the API's scopes). Idempotent; run after each
     * migration, since a changed function is created anew.
     */
    private static final String PIN_SEARCH_PATHS = """
            DO $$
            DECLARE
                s text := current_setting('forgeflow.schema');
                f record;
            BEGIN
                FOR f IN SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args
                         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                         WHERE n.nspname = s
                           AND (p.proname IN ('enqueue', 'forgeflow_check_payload')
                                OR p.prorettype = 'trigger'::regtype) LOOP
                    EXECUTE format('ALTER FUNCTION %I.%I(%s) SET search_path = pg_catalog, %I, pg_temp',
                                   s, f.proname, f.args, s);
                    IF f.proname = 'enqueue' THEN
                        EXECUTE format('ALTER FUNCTION %I.%I(%s) SECURITY DEFINER', s, f.proname, f.args);
                        EXECUTE format('REVOKE ALL ON FUNCTION %I.%I(%s) FROM PUBLIC', s, f.proname, f.args);
                    END IF;
                END LOOP;
            END
            $$""";

    /**
     * Creates {@code schema} if it is missing and moves an earlier install out of {@code public}
     * ({@link #PREPARE_SCHEMA}), in one transaction. Done by anyone who may write it before migrating (the node at
     * start, {@code db migrate}); a no-op once the schema exists and holds Liquibase's tables.
     */
    public static void prepareSchema(Connection connection, String schema) throws SQLException {
        inTransaction(connection, schema, PREPARE_SCHEMA);
    }

    private static void pinSearchPaths(Connection connection, String schema) throws SQLException {
        inTransaction(connection, schema, PIN_SEARCH_PATHS);
    }

    private static void inTransaction(Connection connection, String schema, String block) throws SQLException {
        PostgresSchema.require(schema);
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (PreparedStatement bind = connection.prepareStatement(BIND_SCHEMA);
             Statement st = connection.createStatement()) {
            bind.setString(1, schema);
            bind.execute();
            st.execute(block);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private static final String UNLIMITED = "SET statement_timeout = 0; SET lock_timeout = 0; "
            + "SET idle_in_transaction_session_timeout = 0";
    private static final String LIMITED = "RESET statement_timeout; RESET lock_timeout; "
            + "RESET idle_in_transaction_session_timeout";

    /** The advisory-lock key that serialises migrations ("FFMigrate"), distinct from the scheduler's. */
    public static final long MIGRATION_LOCK_KEY = 0x4646_4D69_6772_6174L;

    /** Whether no changeset is pending (false for an empty database). Creates nothing; one query. */
    public static boolean isMigrated(DataSource dataSource) {
        return pendingChangeSets(dataSource).isEmpty();
    }

    /** Whether no changeset is pending in {@code schema}. */
    public static boolean isMigrated(DataSource dataSource, String schema) {
        return pendingChangeSets(dataSource, schema).isEmpty();
    }

    /**
     * The ids of the changesets of {@value #CHANGELOG} that the database has not applied, in changelog order. Reads
     * Liquibase's {@code databasechangelog} table (an empty database has none: everything is pending) and creates
     * nothing. The changelog is parsed once per JVM.
     */
    public static List<String> pendingChangeSets(DataSource dataSource) {
        return pendingChangeSets(dataSource, PostgresSchema.DEFAULT);
    }

    /** The pending changesets of the install in {@code schema} (see {@link #pendingChangeSets(DataSource)}). */
    public static List<String> pendingChangeSets(DataSource dataSource, String schema) {
        try (Connection connection = dataSource.getConnection()) {
            return pendingChangeSets(connection, schema);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the migration status: " + e.getMessage(), e);
        }
    }

    /** As {@link #pendingChangeSets(DataSource, String)}, on a connection the caller holds (left open). */
    public static List<String> pendingChangeSets(Connection connection, String schema) {
        PostgresSchema.require(schema);
        List<ChangeSetKey> expected = expectedChangeSets();
        Set<ChangeSetKey> applied = appliedChangeSets(connection, schema);
        return expected.stream().filter(key -> !applied.contains(key)).map(ChangeSetKey::id).toList();
    }

    /**
     * The ids of ForgeFlow's changesets (author forgeflow) the database has applied that this release's changelog does
     * not have: a newer release migrated it. Empty for a database of this release or an older one.
     */
    static List<String> newerChangeSets(Connection connection, String schema) {
        // by id alone: a path stored differently by an older Liquibase is still the same changeset
        Set<String> known = new HashSet<>();
        expectedChangeSets().forEach(key -> known.add(key.id()));
        return appliedChangeSets(connection, schema).stream()
                .filter(key -> "forgeflow".equals(key.author()) && !known.contains(key.id()))
                .map(ChangeSetKey::id).sorted().toList();
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

    private static Set<ChangeSetKey> appliedChangeSets(Connection connection, String schema) {
        try {
            // the schema alone on the search path, for this read-only transaction
            return inSchema(connection, schema, false, (c, statement) -> {
                Set<ChangeSetKey> applied = new HashSet<>();
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
            });
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the migration status: " + e.getMessage(), e);
        }
    }

    private interface LiquibaseWork<T> {
        T run(Database database) throws Exception;
    }

    private static <T> T inLiquibase(DataSource dataSource, String schema, String what, LiquibaseWork<T> work) {
        return inLiquibase(dataSource, schema, what, null, work);
    }

    /** Liquibase's work on a connection of its own, without session limits but {@code lockTimeout} if given. */
    private static <T> T inLiquibase(DataSource dataSource, String schema, String what, String lockTimeout,
                                     LiquibaseWork<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            try (Statement st = connection.createStatement()) {
                st.execute(UNLIMITED);
            }
            if (lockTimeout != null) {
                try (PreparedStatement limit = connection.prepareStatement("SELECT set_config('lock_timeout', ?, false)")) {
                    limit.setString(1, lockTimeout);
                    limit.execute();
                }
            }
            String searchPath;
            try (Statement st = connection.createStatement();
                 ResultSet rs = st.executeQuery("SELECT current_setting('search_path')")) {
                rs.next();
                searchPath = rs.getString(1);
            }
            try (PreparedStatement path = connection.prepareStatement("SELECT set_config('search_path', ?, false)")) {
                path.setString(1, schema);
                path.execute();
            }
            try {
                return runInScope(connection, schema, work);
            } finally {
                if (!connection.isClosed()) {
                    if (!connection.getAutoCommit()) {
                        connection.commit();
                    }
                    try (var restore = connection.prepareStatement("SELECT set_config('search_path', ?, false)")) {
                        restore.setString(1, searchPath);
                        restore.execute();
                    }
                }
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

    /** Whether {@code e} came from a statement that gave up waiting for a lock (SQLSTATE 55P03). */
    private static boolean waitedForALock(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && "55P03".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    private static void pause() {
        try {
            Thread.sleep(200 + java.util.concurrent.ThreadLocalRandom.current().nextInt(300));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to migrate the database", e);
        }
    }

    /** The oldest transactions (at most 5) that hold a lock on a relation of {@code schema}, for people. */
    private static String holders(Connection connection, String schema) {
        try (PreparedStatement st = connection.prepareStatement(HOLDERS)) {
            st.setString(1, schema);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                String found = rs.getString(1);
                return found != null ? found : "none now";
            }
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static final String HOLDERS = """
            SELECT string_agg(format('pid %s (%s, transaction open since %s)', h.pid, h.app, h.xact_start), '; '
                              ORDER BY h.xact_start)
            FROM (SELECT DISTINCT a.pid, coalesce(nullif(a.application_name, ''), 'no application_name') AS app,
                         a.xact_start
                  FROM pg_locks l
                  JOIN pg_stat_activity a ON a.pid = l.pid
                  JOIN pg_class c ON c.oid = l.relation
                  JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE n.nspname = ? AND l.granted AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
                  ORDER BY a.xact_start
                  LIMIT 5) h""";

    private static <T> T runInScope(Connection connection, String schema, LiquibaseWork<T> work) throws Exception {
        Database database = DatabaseFactory.getInstance()
                .findCorrectDatabaseImplementation(new JdbcConnection(connection));
        database.setDefaultSchemaName(schema);
        database.setLiquibaseSchemaName(schema);
        return Scope.child(scope(), () -> work.run(database));
    }

    private static Map<String, Object> scope() {
        return Map.of(
                Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(PostgresMigrations.class.getClassLoader()),
                Scope.Attr.ui.name(), new LoggerUIService(),
                AnalyticsArgs.ENABLED.getKey(), false);
    }
}
