-- batchByKey: the batch holding an idempotency key: its id, its job ids in request order, its refs.
SELECT id, job_ids::text[] AS job_ids, refs::text AS refs FROM batches WHERE idempotency_key = :idempotencyKey
