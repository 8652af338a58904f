package io.forgeflow.client;

/**
 * What {@code POST /api/batches} answered: the batch (with its {@link Batch#jobIds() job ids} and
 * {@link Batch#refs() refs}), and whether it was created now (201) or an earlier submission with the same idempotency
 * key and body was replayed (200).
 */
public record BatchSubmitResult(Batch batch, boolean created) {
}
