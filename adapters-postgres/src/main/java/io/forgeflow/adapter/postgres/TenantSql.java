package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.tenant.TenantInfo;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;

/** The statements on tenants' settings, one file each under {@code TenantSql/}. {@code :now} is null in production. */
@UseClasspathSqlLocator
interface TenantSql {

    @SqlQuery
    List<TenantInfo> list(@Bind("now") Instant now);

    @SqlQuery
    TenantInfo get(@Bind("name") String name, @Bind("now") Instant now);

    @SqlUpdate
    int configure(@Bind("name") String name, @Bind("setWeight") boolean setWeight, @Bind("weight") int weight,
                  @Bind("setMaxRunning") boolean setMaxRunning, @Bind("maxRunning") Integer maxRunning,
                  @Bind("setRateLimit") boolean setRateLimit, @Bind("rateCount") Integer rateCount,
                  @Bind("ratePerSeconds") Integer ratePerSeconds, @Bind("now") Instant now);
}
