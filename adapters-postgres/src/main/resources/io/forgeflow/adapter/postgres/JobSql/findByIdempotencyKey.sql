-- findByIdempotencyKey: a plain read through the unique index, no locks; reads the job holding a taken key.
SELECT *
FROM jobs
WHERE idempotency_key = :idempotencyKey
