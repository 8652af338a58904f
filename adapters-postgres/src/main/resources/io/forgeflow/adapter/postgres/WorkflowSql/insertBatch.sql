-- insertBatch: the batch row, first statement of a batch's transaction; nothing when its idempotency key is taken (a
-- concurrent creator with the key waits here until the first commits).
INSERT INTO batches (id, name, idempotency_key, request_hash, total, job_ids, refs, on_complete_job_id, created_at,
                     tenant)
VALUES (CAST(:id AS uuid), :name, :idempotencyKey, :requestHash, :total, CAST(:jobIds AS uuid[]), CAST(:refs AS jsonb),
        CAST(:onComplete AS uuid),
        coalesce(CAST(:now AS timestamptz), now()), :tenant)
ON CONFLICT (idempotency_key) DO NOTHING
RETURNING id
