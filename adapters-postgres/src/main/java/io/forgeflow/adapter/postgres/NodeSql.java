package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.time.Instant;
import java.util.List;

/** The statements on {@code nodes}, one file each under {@code NodeSql/}. {@code :now} is null in production. */
@UseClasspathSqlLocator
interface NodeSql {

    @SqlUpdate
    void heartbeat(@Bind("workerId") String workerId, @Bind("roles") String[] roles, @Bind("version") String version,
                   @Bind("startedAt") Instant startedAt, @Bind("leader") boolean leader,
                   @Bind("containment") String containment, @Bind("jobUser") String jobUser, @Bind("grpcAddress") String grpcAddress,
                   @Bind("pooling") String pooling, @Bind("wakeUps") String wakeUps,
                   @Bind("leadership") String leadership, @Bind("leaderTerm") Long leaderTerm,
                   @Bind("poolMax") Integer poolMax, @Bind("poolInUse") Integer poolInUse,
                   @Bind("sessionConnections") Integer sessionConnections,
                   @Bind("now") Instant now);

    @SqlUpdate
    void remove(@Bind("workerId") String workerId);

    @SqlQuery
    List<NodeStatus> list(@Bind("liveWindowSeconds") long liveWindowSeconds,
                          @Bind("keepWindowSeconds") long keepWindowSeconds, @Bind("now") Instant now);

    @SqlUpdate
    int forgetUnseen(@Bind("unseenForSeconds") long unseenForSeconds, @Bind("now") Instant now);
}
