package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.job.Notice;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;

/** The statements on the notices outbox (issue 45), one file each under {@code NoticeSql/}. */
@UseClasspathSqlLocator
interface NoticeSql {

    /** The oldest notices no other transaction holds, locked until commit. */
    @SqlQuery
    List<Notice> lockOldest(@Bind("limit") int limit);

    @SqlUpdate
    int remove(@Bind("ids") Long[] ids);

    @SqlQuery
    List<Notice> oldest(@Bind("limit") int limit);
}
