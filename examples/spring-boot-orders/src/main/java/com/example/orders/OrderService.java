package com.example.orders;

import io.forgeflow.spring.ForgeFlow;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.util.UUID;

/** Places orders: the order row and its receipt job commit together, or neither does. */
@Service
public class OrderService {
    private final JdbcTemplate jdbc;
    private final ForgeFlow forgeFlow;

    public OrderService(JdbcTemplate jdbc, ForgeFlow forgeFlow) {
        this.jdbc = jdbc;
        this.forgeFlow = forgeFlow;
    }

    @Transactional
    public String place(String email, long cents) {
        if (cents <= 0) {
            throw new IllegalArgumentException("cents must be positive, was " + cents);
        }
        String id = UUID.randomUUID().toString();
        jdbc.update("INSERT INTO orders (id, email, cents) VALUES (?, ?, ?)", id, email, cents);
        forgeFlow.enqueue("send-receipt", new ReceiptRequest(id, email));
        if (email.endsWith("@blocked.example")) {
            throw new IllegalStateException("customer " + email + " is blocked"); // rolls back the order and the job
        }
        return id;
    }
}
