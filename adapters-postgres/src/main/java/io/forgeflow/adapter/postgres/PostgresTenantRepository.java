package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.TenantRepository;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.tenant.TenantInfo;
import io.forgeflow.domain.tenant.TenantSettings;
import io.forgeflow.domain.tenant.Tenants;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * Tenants' settings on PostgreSQL ({@link TenantRepository}): in {@code tenants}, written by operators only; load
 * from {@code runs}. The claim ({@code forgeflow_claim}) reads the settings on every call, so a change applies to the
 * next claim of every node.
 */
public final class PostgresTenantRepository implements TenantRepository {
    private final Jdbi jdbi;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresTenantRepository(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public List<TenantInfo> list() {
        return jdbi.withExtension(TenantSql.class, sql -> sql.list(clock.now()));
    }

    @Override
    public TenantInfo get(String name) {
        Tenants.require("tenant", name);
        return jdbi.withExtension(TenantSql.class, sql -> sql.get(name, clock.now()));
    }

    @Override
    public TenantInfo configure(String name, boolean setWeight, boolean setMaxRunning, boolean setRateLimit,
                                TenantSettings settings) {
        Tenants.require("tenant", name);
        Objects.requireNonNull(settings, "settings");
        RateLimit rate = settings.rateLimit();
        return jdbi.inTransaction(handle -> {
            TenantSql sql = handle.attach(TenantSql.class);
            sql.configure(name, setWeight, setWeight ? settings.weight() : 1, setMaxRunning,
                    setMaxRunning ? settings.maxRunning() : null, setRateLimit,
                    setRateLimit && rate != null ? rate.count() : null,
                    setRateLimit && rate != null ? rate.perSeconds() : null, clock.now());
            return sql.get(name, clock.now());
        });
    }
}
