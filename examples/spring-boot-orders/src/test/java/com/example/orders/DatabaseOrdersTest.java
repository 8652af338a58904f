package com.example.orders;

import io.forgeflow.test.ForgeFlowTest;
import io.forgeflow.test.TestForgeFlow;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Database mode: the application as it runs, on PostgreSQL: the job is committed with the order, the embedded
 * worker sends the receipt, and the nightly report is a recurring job in ForgeFlow's tables.
 */
@SpringBootTest(properties = {"forgeflow.poll-interval=200ms", "forgeflow.drain-grace=2s"})
@ForgeFlowTest(mode = ForgeFlowTest.Mode.DATABASE)
class DatabaseOrdersTest {
    @Autowired
    OrderService orders;
    @Autowired
    TestForgeFlow forgeFlow;
    @Autowired
    JdbcTemplate jdbc;

    @Test
    void theWorkerSendsTheReceiptAndTheNightlyReportIsScheduled() {
        String id = orders.place("linus@example.com", 999);
        forgeFlow.drain();
        assertThat(jdbc.queryForObject("SELECT email FROM receipts WHERE order_id = ?", String.class, id))
                .isEqualTo("linus@example.com");
        assertThat(jdbc.queryForObject("SELECT r.status FROM forgeflow.runs r JOIN forgeflow.jobs j ON j.id = r.job_id "
                + "WHERE j.payload -> 'args' ->> 'orderId' = ?", String.class, id)).isEqualTo("succeeded");
        assertThat(jdbc.queryForObject("SELECT cron_expr || ' ' || overlap || ' ' || status FROM forgeflow.jobs "
                + "WHERE name = 'nightly-report'", String.class)).isEqualTo("0 2 * * * skip active");
    }
}
