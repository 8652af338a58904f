package com.example.orders;

import io.forgeflow.test.ForgeFlowTest;
import io.forgeflow.test.TestForgeFlow;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Inline mode: the receipt handler runs in the test's thread when the order's transaction commits. */
@SpringBootTest
@ForgeFlowTest(mode = ForgeFlowTest.Mode.INLINE)
class InlineOrdersTest {
    @Autowired
    OrderService orders;
    @Autowired
    TestForgeFlow forgeFlow;
    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aPlacedOrderHasItsReceiptAtCommit() {
        String id = orders.place("ada@example.com", 1200);
        assertThat(jdbc.queryForObject("SELECT email FROM receipts WHERE order_id = ?", String.class, id))
                .isEqualTo("ada@example.com");
        forgeFlow.assertEnqueued("send-receipt", new ReceiptRequest(id, "ada@example.com"));
    }

    @Test
    void aRolledBackOrderSendsNothing() {
        assertThatThrownBy(() -> orders.place("eve@blocked.example", 500)).hasMessageContaining("blocked");
        forgeFlow.assertNotEnqueued("send-receipt");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM receipts WHERE email = 'eve@blocked.example'",
                Integer.class)).isZero();
    }
}
