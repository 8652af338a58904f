package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.job.QueueNames;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.tenant.Tenants;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * Named queues on PostgreSQL ({@link QueueRepository}): settings in {@code queues} by (tenant, name), depth and running
 * counts from the partial indexes of {@code runs}. The claim ({@code forgeflow_claim}) reads the settings on every call, so
 * a change applies to the next claim of every node.
 */
public final class PostgresQueueRepository implements QueueRepository {
    private final Jdbi jdbi;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresQueueRepository(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public List<QueueInfo> list(String tenant) {
        if (tenant != null) {
            Tenants.require("tenant", tenant);
        }
        return jdbi.withExtension(QueueSql.class, sql -> sql.list(tenant, clock.now()));
    }

    @Override
    public QueueInfo get(String tenant, String name) {
        Tenants.require("tenant", tenant);
        QueueNames.require("queue", name);
        return jdbi.withExtension(QueueSql.class, sql -> sql.get(tenant, name, clock.now()));
    }

    @Override
    public QueueInfo configure(String tenant, String name, boolean setMaxRunning, boolean setRateLimit,
                               QueueLimits limits) {
        Tenants.require("tenant", tenant);
        QueueNames.require("queue", name);
        Objects.requireNonNull(limits, "limits");
        RateLimit rate = limits.rateLimit();
        return jdbi.inTransaction(handle -> {
            QueueSql sql = handle.attach(QueueSql.class);
            sql.configure(tenant, name, setMaxRunning, setMaxRunning ? limits.maxRunning() : null, setRateLimit,
                    setRateLimit && rate != null ? rate.count() : null,
                    setRateLimit && rate != null ? rate.perSeconds() : null, clock.now());
            return sql.get(tenant, name, clock.now());
        });
    }

    @Override
    public QueueInfo setPaused(String tenant, String name, boolean paused) {
        Tenants.require("tenant", tenant);
        QueueNames.require("queue", name);
        return jdbi.inTransaction(handle -> {
            QueueSql sql = handle.attach(QueueSql.class);
            sql.setPaused(tenant, name, paused, clock.now());
            return sql.get(tenant, name, clock.now());
        });
    }
}
