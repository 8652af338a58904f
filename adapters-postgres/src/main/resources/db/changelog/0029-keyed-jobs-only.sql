--liquibase formatted sql

-- Issue 40, the contract step of the idempotency key's partial index: the unique constraint held an entry for every
-- job, NULL keys included, so each one-off run wrote it twice (the job's insert, and its never-HOT completion). Every
-- writer names the predicate since eac3342 (2026-12-06: ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT
-- NULL), which matches this index; nodes built before that cannot submit once it has run (README "Upgrading"). A plain
-- CREATE INDEX, as 0003's: writes to jobs wait while it is built (keyed jobs only); CONCURRENTLY would wait for the
-- nodes queued on the migration lock. Its name stays the constraint's, which errors and the enqueue() message name.

--changeset forgeflow:0029-keyed-jobs-only
CREATE UNIQUE INDEX jobs_idempotency_key_keyed ON jobs (idempotency_key) WHERE idempotency_key IS NOT NULL;
ALTER TABLE jobs DROP CONSTRAINT jobs_idempotency_key_unique;
ALTER INDEX jobs_idempotency_key_keyed RENAME TO jobs_idempotency_key_unique;
--rollback ALTER INDEX jobs_idempotency_key_unique RENAME TO jobs_idempotency_key_keyed; ALTER TABLE jobs ADD CONSTRAINT jobs_idempotency_key_unique UNIQUE (idempotency_key); DROP INDEX jobs_idempotency_key_keyed;
