package io.forgeflow.adapter.postgres.testing;

import liquibase.Scope;
import liquibase.analytics.configuration.AnalyticsArgs;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.Map;

/**
 * Makes a database as the last release before schemas left it: that release's changelog
 * ({@code db/release-before-schemas/migrations.xml}, the same files under the same paths) applied in {@code public}.
 */
public final class ReleaseBeforeSchemas {
    private ReleaseBeforeSchemas() {
    }

    /** Applies that release's changelog on {@code dataSource}, whose sessions must search {@code public}. */
    public static void apply(DataSource dataSource) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
            Scope.child(Map.of(Scope.Attr.resourceAccessor.name(),
                    new ClassLoaderResourceAccessor(ReleaseBeforeSchemas.class.getClassLoader()),
                    AnalyticsArgs.ENABLED.getKey(), false), () -> {
                new CommandScope(UpdateCommandStep.COMMAND_NAME)
                        .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                        .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, "db/release-before-schemas/migrations.xml")
                        .execute();
            });
        }
    }
}
