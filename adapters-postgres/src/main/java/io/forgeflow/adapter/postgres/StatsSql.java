package io.forgeflow.adapter.postgres;

import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

import java.time.Instant;

/** The metrics' reads of the queue, one file each under {@code StatsSql/}. {@code :now} is null in production. */
@UseClasspathSqlLocator
interface StatsSql {

    @SqlQuery
    Rows.QueueRow snapshot(@Bind("now") Instant now);
}
