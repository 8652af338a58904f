package io.forgeflow.embedded;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** The application's side of the tests: its own HikariCP pool (default search_path) and waiting on conditions. */
final class EmbeddedFixture {
    private EmbeddedFixture() {
    }

    /** A pool as an application would make it: nothing ForgeFlow-specific in its settings. */
    static HikariDataSource applicationPool(PostgresExtension pg, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.jdbcUrl());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setMaximumPoolSize(size);
        config.setPoolName("application");
        return new HikariDataSource(config);
    }

    /** A worker builder with short timings for tests. */
    static ForgeFlowWorker.Builder fast(HikariDataSource pool, String workerId) {
        return ForgeFlowWorker.builder().dataSource(pool).workerId(workerId).concurrency(4)
                .lease(Duration.ofSeconds(4)).heartbeatInterval(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(200)).retryBase(Duration.ofMillis(20))
                .drainGrace(Duration.ofSeconds(5)).interruptGrace(Duration.ofMillis(500));
    }

    /** Waits for {@code condition}, polling every 20 ms, failing with {@code what} after {@code max}. */
    static void await(String what, Duration max, BooleanSupplier condition) {
        await(what, max, condition, () -> "");
    }

    static void await(String what, Duration max, BooleanSupplier condition, Supplier<String> detail) {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not happen within " + max + " " + detail.get());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(20); // polling a condition with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
        }
    }
}
