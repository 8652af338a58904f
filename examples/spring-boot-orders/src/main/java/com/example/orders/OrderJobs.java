package com.example.orders;

import io.forgeflow.spring.ForgeFlowHandler;
import io.forgeflow.spring.Recurring;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** The service's background work, run by the embedded worker. */
@Component
public class OrderJobs {
    private final JdbcTemplate jdbc;

    public OrderJobs(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Sends an order's receipt (here: records it as sent). */
    @ForgeFlowHandler("send-receipt")
    public void sendReceipt(ReceiptRequest receipt) {
        jdbc.update("INSERT INTO receipts (order_id, email) VALUES (?, ?) ON CONFLICT (order_id) DO NOTHING",
                receipt.orderId(), receipt.email());
    }

    /** Every night at 02:00 UTC: the day's order count; a tick while the last report still runs is skipped. */
    @Recurring(name = "nightly-report", cron = "0 2 * * *", zone = "UTC", overlap = Recurring.Overlap.SKIP)
    public void nightlyReport() {
        jdbc.update("INSERT INTO reports (orders) SELECT count(*) FROM orders");
    }
}
