package io.forgeflow.server;

import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.migrations.MigrationsBundle;
import io.dropwizard.lifecycle.AutoCloseableManager;
import io.forgeflow.cli.ClientCommand;
import io.forgeflow.cli.ClientCommands;
import io.forgeflow.cli.ExitCodes;
import io.forgeflow.cli.Terminal;
import io.forgeflow.devdatabase.DevelopmentDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * The ForgeFlow node: {@code java -jar forgeflow.jar server [forgeflow.yml]}. The composition root: reads the
 * configuration (YAML, then {@code FORGEFLOW_*} variables), connects to PostgreSQL (or starts the development
 * database), migrates, and wires the roles ({@link NodeWiring}).
 */
public class ForgeFlowApplication extends Application<ForgeFlowConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(ForgeFlowApplication.class);

    /** Where the command-line client (jobs, runs, dlq, stats, nodes) prints: the process's streams, or a test's. */
    private final Terminal terminal;

    public ForgeFlowApplication() {
        this(Terminal.system());
    }

    ForgeFlowApplication(Terminal terminal) {
        this.terminal = terminal;
    }

    public static void main(String[] args) throws Exception {
        exitZeroOnSigterm();
        new ForgeFlowApplication().run(args);
    }

    @Override
    public String getName() {
        return "forgeflow";
    }

    @Override
    public void initialize(Bootstrap<ForgeFlowConfiguration> bootstrap) {
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        // the command-line client (cli module): REST through the client module
        for (ClientCommand command : ClientCommands.all(terminal, "java -jar forgeflow.jar")) {
            bootstrap.addCommand(new NodeJarCommand(command));
        }
        bootstrap.addBundle(new MigrationsBundle<ForgeFlowConfiguration>() {
            @Override
            public DataSourceFactory getDataSourceFactory(ForgeFlowConfiguration configuration) {
                EnvironmentOverrides.apply(configuration, System.getenv());
                if (configuration.forgeflow().databaseUrl.isBlank()) {
                    throw new IllegalStateException("the db commands need a database: set FORGEFLOW_DATABASE_URL "
                            + "(postgresql://user:pass@host:5432/db); the development database migrates itself at start");
                }
                ForgeFlowSettings s = configuration.forgeflow();
                if (DatabaseSettings.mode(s) == DatabaseSettings.Mode.POLLING) {
                    throw new IllegalStateException("the db commands need a direct connection (the migrations hold an "
                            + "advisory lock): FORGEFLOW_DATABASE_POOLING=transaction without FORGEFLOW_DATABASE_SESSION_URL "
                            + "goes through the pooler; set FORGEFLOW_DATABASE_SESSION_URL, or FORGEFLOW_DATABASE_URL to "
                            + "PostgreSQL itself, for this command");
                }
                String schema = io.forgeflow.adapter.postgres.PostgresSchema.require(s.databaseSchema);
                // migrations hold session state (Liquibase's connection, locks): the direct URL when there is one
                DataSourceFactory dsf = DatabaseSettings.useSchema(DatabaseSettings.apply(configuration.database(),
                        s.databaseSessionUrl.isBlank() ? s.databaseUrl : s.databaseSessionUrl), schema);
                // Liquibase needs the schema to exist (and an earlier install in public moved into it) before it looks
                try (java.sql.Connection connection = DatabaseSettings.dedicated(
                        new DatabaseSettings.Sessions(dsf.getUrl(), dsf.getUser(), dsf.getPassword(), schema, false),
                        "forgeflow-db-command").get()) {
                    io.forgeflow.adapter.postgres.PostgresMigrations.prepareSchema(connection, schema);
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException("could not prepare the schema " + schema + ": " + e.getMessage(), e);
                }
                return dsf;
            }

            @Override
            public String getMigrationsFileName() {
                return "migrations.xml";
            }
        });
    }

    @Override
    public void run(ForgeFlowConfiguration config, Environment environment) throws Exception {
        SecretHeaderLogFilter.install(); // logging is configured by now: no Authorization header in it, at any level
        ProcessProtection.makeNonDumpable(); // jobs of this OS user cannot read the node's /proc environ or memory
        EnvironmentOverrides.apply(config, System.getenv());
        NodeSecurity security = NodeSecurity.of(config); // before anything starts: an exposed, open node stops here
        security.logAtStart();
        ForgeFlowSettings settings = config.forgeflow();
        DataSourceFactory dsf = config.database();
        if (settings.databaseUrl.isBlank()) {
            DevelopmentDatabase dev = DevelopmentDatabase.start(java.nio.file.Path.of(settings.dataDirectory));
            environment.lifecycle().manage(new AutoCloseableManager(dev));
            dsf.setUrl(dev.jdbcUrl());
            dsf.setUser(dev.user());
            dsf.setPassword("");
        } else {
            DatabaseSettings.apply(dsf, settings.databaseUrl);
            LOG.info("database: {}", DatabaseSettings.describe(dsf));
        }
        DatabaseSettings.limit(dsf, DatabaseSettings.limitsOf(settings));
        DatabaseSettings.useSchema(dsf, settings.databaseSchema);
        DatabaseSettings.withNetworkTimeouts(dsf);
        DatabaseSettings.Mode mode = DatabaseSettings.mode(settings);
        if (mode != DatabaseSettings.Mode.DIRECT) {
            if (settings.databaseUrl.isBlank()) {
                throw new IllegalStateException("FORGEFLOW_DATABASE_SESSION_URL or FORGEFLOW_DATABASE_POOLING=transaction "
                        + "is set but FORGEFLOW_DATABASE_URL is not: they describe the transaction pooler there");
            }
            DatabaseSettings.forTransactionPooler(dsf);
            if (mode == DatabaseSettings.Mode.SESSIONS) {
                LOG.info("database: pooled in transaction mode; session connections to {}",
                        DatabaseSettings.sessions(dsf, settings));
            } else {
                LOG.info("database: pooled in transaction mode without session connections: wake-ups by polling every "
                        + "{}, leadership by the lease row", settings.pollInterval);
            }
        }
        int poolSize = ConnectionBudget.poolSize(settings, dsf.getMaxSize());
        dsf.setMaxSize(poolSize);
        dsf.setMinSize(Math.min(dsf.getMinSize(), poolSize));
        dsf.setInitialSize(Math.min(dsf.getInitialSize(), poolSize));
        LOG.info("database pool: at most {} connections (roles {}, {} slots; FORGEFLOW_DATABASE_POOL_SIZE overrides)",
                poolSize, settings.roles, ConnectionBudget.slots(settings));
        ManagedDataSource dataSource = dsf.build(environment.metrics(), "postgresql");
        environment.lifecycle().manage(dataSource);
        new NodeWiring(config, environment, dataSource, security).wire();
    }

    /** A failed command exits with the code scripts rely on ({@link ExitCodes}: 2 usage, 3 not found, 4 conflict, else 1). */
    @Override
    protected void onFatalError(Throwable t) {
        System.exit(ExitCodes.of(t));
    }

    /**
     * SIGTERM is an orderly stop (drain, release, exit 0), not a failure: without this the JVM reports 143 even
     * though every shutdown hook ran.
     */
    private static void exitZeroOnSigterm() {
        try {
            Signal.handle(new Signal("TERM"), sig -> new Thread(() -> System.exit(0), "ff-sigterm").start());
        } catch (IllegalArgumentException e) {
            LOG.debug("SIGTERM handler not installed: {}", e.toString());
        }
    }
}
