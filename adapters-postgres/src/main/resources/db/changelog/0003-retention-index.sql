--liquibase formatted sql

-- Retention deletes finished runs oldest first, by finished_at; this partial index finds them without scanning the
-- table. A plain CREATE INDEX: on a large runs table, writes to runs wait while it is built during the upgrade (a few
-- seconds per million runs). CONCURRENTLY would wait for every open transaction, including the other nodes queued on
-- the migration lock, and never finish.

--changeset forgeflow:0003-runs-finished-idx
CREATE INDEX IF NOT EXISTS runs_finished_idx ON runs (finished_at) WHERE status IN ('succeeded', 'dead', 'cancelled');
--rollback DROP INDEX IF EXISTS runs_finished_idx;
