package io.forgeflow.adapter.postgres;

import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;

/** The statements on {@code handlers}, one file each under {@code HandlerSql/}. {@code :now} is null in production. */
@UseClasspathSqlLocator
interface HandlerSql {

    @SqlUpdate
    void announce(@Bind("workerId") String workerId, @Bind("names") String[] names, @Bind("ttlMillis") long ttlMillis,
                  @Bind("now") Instant now);

    @SqlUpdate
    void withdraw(@Bind("workerId") String workerId);

    @SqlQuery
    List<String> live(@Bind("now") Instant now);
}
