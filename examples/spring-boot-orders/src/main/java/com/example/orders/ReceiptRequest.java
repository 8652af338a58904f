package com.example.orders;

/** The args of a send-receipt job. */
public record ReceiptRequest(String orderId, String email) {
}
