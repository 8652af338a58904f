package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.queue.QueueInfo;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;

/**
 * The statements on named queues (a tenant's), one file each under {@code QueueSql/}. {@code :now} is null in
 * production; {@code :tenant} is null in {@code list} for every tenant.
 */
@UseClasspathSqlLocator
interface QueueSql {

    @SqlQuery
    List<QueueInfo> list(@Bind("tenant") String tenant, @Bind("now") Instant now);

    @SqlQuery
    QueueInfo get(@Bind("tenant") String tenant, @Bind("name") String name, @Bind("now") Instant now);

    @SqlUpdate
    int configure(@Bind("tenant") String tenant, @Bind("name") String name, @Bind("setMaxRunning") boolean setMaxRunning,
                  @Bind("maxRunning") Integer maxRunning, @Bind("setRateLimit") boolean setRateLimit,
                  @Bind("rateCount") Integer rateCount, @Bind("ratePerSeconds") Integer ratePerSeconds,
                  @Bind("now") Instant now);

    @SqlUpdate
    int setPaused(@Bind("tenant") String tenant, @Bind("name") String name, @Bind("paused") boolean paused, @Bind("now") Instant now);
}
