package io.forgeflow.adapter.postgres;

import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;

/** The leader's retention deletes, one file each under {@code RetentionSql/}. {@code :now} is null in production. */
@UseClasspathSqlLocator
interface RetentionSql {

    @SqlUpdate
    int deleteFinishedRuns(@Bind("olderThanMillis") long olderThanMillis, @Bind("limit") int limit,
                           @Bind("now") Instant now);

    /** Locks the jobs it returns: call inside the transaction that then calls {@link #deleteJobs}. */
    @SqlQuery
    List<String> lockFinishedJobs(@Bind("olderThanMillis") long olderThanMillis, @Bind("limit") int limit,
                                  @Bind("now") Instant now);

    @SqlUpdate
    int deleteJobs(@Bind("ids") String[] ids);
}
