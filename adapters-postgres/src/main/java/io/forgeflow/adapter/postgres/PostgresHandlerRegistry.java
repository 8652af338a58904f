package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.HandlerRegistry;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The live embedded workers' handlers in table {@code handlers} ({@link HandlerRegistry}): one row per handler and
 * worker, with an expiry on the database clock. Modelled on {@link PostgresExecutorCatalog}, except that rows expire:
 * a handler is waited for, not refused, once its last worker is gone.
 */
public final class PostgresHandlerRegistry implements HandlerRegistry {
    private final Jdbi jdbi;
    private final DbClock clock;

    /**
     * @param jdbi      made by {@link PostgresJdbi#create}
     * @param testClock null in production (the database clock decides); a fixed clock in tests
     */
    public PostgresHandlerRegistry(Jdbi jdbi, Clock testClock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.clock = new DbClock(testClock);
    }

    @Override
    public void announce(String workerId, Set<String> handlers, Duration ttl) {
        Objects.requireNonNull(workerId, "workerId");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl);
        }
        String[] names = new TreeSet<>(handlers).toArray(String[]::new);
        jdbi.useExtension(HandlerSql.class, sql -> sql.announce(workerId, names, ttl.toMillis(), clock.now()));
    }

    @Override
    public void withdraw(String workerId) {
        Objects.requireNonNull(workerId, "workerId");
        jdbi.useExtension(HandlerSql.class, sql -> sql.withdraw(workerId));
    }

    @Override
    public Set<String> liveHandlers() {
        return Set.copyOf(jdbi.withExtension(HandlerSql.class, sql -> sql.live(clock.now())));
    }
}
