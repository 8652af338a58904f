package com.example.shop;

import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import io.forgeflow.embedded.ForgeFlowWorker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A shop that stores an order and its receipt job in one transaction, and sends the receipt in its own JVM. */
public final class EmbeddedShop {

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "jdbc:postgresql://127.0.0.1:5432/shop?user=postgres";
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(url);
            pool.setMaximumPoolSize(10); // the application's own use, plus ForgeFlow's three held sessions
            System.out.println(run(pool, 42));
        }
    }

    /** Places order {@code orderId} and waits until its receipt was sent; returns what the handler printed. */
    public static String run(HikariDataSource pool, long orderId) throws Exception {
        CountDownLatch sent = new CountDownLatch(1);
        StringBuilder receipt = new StringBuilder();
        try (ForgeFlowWorker worker = ForgeFlowWorker.builder()
                .dataSource(pool)
                .workerId("shop-1")
                .concurrency(4)
                .scheduler(true) // no ForgeFlow node at all: this JVM also recovers lost runs and fires cron jobs
                .handler("send-receipt", ctx -> {
                    receipt.append("receipt for order ").append(ctx.payload().get("order_id").asLong());
                    ctx.output(receipt.toString());
                    sent.countDown();
                })
                .start()) {
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS orders (id bigint PRIMARY KEY, receipt_job text)");
            }
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                var job = ForgeFlowJdbc.enqueue(c, JobRequest.handler("receipt-" + orderId, "send-receipt",
                        Map.of("order_id", orderId)).maxAttempts(5).build());
                try (PreparedStatement order = c.prepareStatement("INSERT INTO orders VALUES (?, ?)")) {
                    order.setLong(1, orderId);
                    order.setString(2, job.jobId());
                    order.executeUpdate();
                }
                c.commit(); // the order and its receipt job, or neither
            }
            if (!sent.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the receipt was not sent within 30 s");
            }
        }
        return receipt.toString();
    }
}
