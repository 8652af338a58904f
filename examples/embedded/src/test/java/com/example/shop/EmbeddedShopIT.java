package com.example.shop;

import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's example, run against a real PostgreSQL: the order is stored and its receipt sent in-process. */
class EmbeddedShopIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @Test
    void theOrderIsStoredAndItsReceiptSentByTheShopsOwnHandler() throws Exception {
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(pg.jdbcUrl());
            pool.setUsername(pg.user());
            pool.setPassword(pg.password());
            pool.setMaximumPoolSize(10);

            assertThat(EmbeddedShop.run(pool, 42)).isEqualTo("receipt for order 42");
        }
        String status = pg.jdbi().withHandle(h -> h.createQuery("SELECT r.status FROM public.orders o "
                + "JOIN runs r ON r.job_id::text = o.receipt_job WHERE o.id = 42").mapTo(String.class).one());
        assertThat(status).isEqualTo("succeeded");
    }
}
