package com.example.orders;

import io.forgeflow.test.ForgeFlowTest;
import io.forgeflow.test.TestForgeFlow;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** Manual mode: the test sees what was enqueued, then runs it with drain(). */
@SpringBootTest
@ForgeFlowTest(mode = ForgeFlowTest.Mode.MANUAL)
class ManualOrdersTest {
    @Autowired
    OrderService orders;
    @Autowired
    TestForgeFlow forgeFlow;
    @Autowired
    JdbcTemplate jdbc;

    @Test
    void theReceiptIsEnqueuedAndSentWhenDrained() {
        String id = orders.place("grace@example.com", 4200);
        forgeFlow.assertEnqueued("send-receipt", new ReceiptRequest(id, "grace@example.com"));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM receipts WHERE order_id = ?", Integer.class, id))
                .as("nothing runs before drain()").isZero();

        assertThat(forgeFlow.drain()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM receipts WHERE order_id = ?", Integer.class, id))
                .isEqualTo(1);
    }
}
