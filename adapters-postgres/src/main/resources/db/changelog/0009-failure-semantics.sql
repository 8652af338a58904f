--liquibase formatted sql

-- Failure semantics per job (issue 28). An attempt records the Retry-After its downstream asked for, as applied
-- (capped by the retry policy). The acknowledgement writes it in the same transaction right after finishing the row,
-- so a finished row may gain it once; every other rewrite of a finished attempt stays refused.

--changeset forgeflow:0009-attempt-retry-after splitStatements:false
ALTER TABLE run_attempts
    ADD COLUMN retry_after_seconds integer
        CONSTRAINT run_attempts_retry_after_non_negative CHECK (retry_after_seconds >= 0);
CREATE OR REPLACE FUNCTION run_attempts_reject_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.retry_after_seconds IS NULL AND NEW.retry_after_seconds IS NOT NULL
       AND (NEW.run_id, NEW.attempt, NEW.worker_id, NEW.started_at, NEW.finished_at, NEW.outcome, NEW.error)
           IS NOT DISTINCT FROM (OLD.run_id, OLD.attempt, OLD.worker_id, OLD.started_at, OLD.finished_at, OLD.outcome,
                                 OLD.error) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'attempt % of run % already ended (%); attempt rows are never rewritten',
        OLD.attempt, OLD.run_id, OLD.outcome
        USING ERRCODE = 'check_violation';
END
$$;
--rollback CREATE OR REPLACE FUNCTION run_attempts_reject_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
--rollback BEGIN
--rollback     RAISE EXCEPTION 'attempt % of run % already ended (%); attempt rows are never rewritten',
--rollback         OLD.attempt, OLD.run_id, OLD.outcome USING ERRCODE = 'check_violation';
--rollback END
--rollback $$;
--rollback ALTER TABLE run_attempts DROP COLUMN retry_after_seconds;

-- Unique while live: a one-off job's unique_key is copied onto its runs (as queue and concurrency key are), and at most
-- one pending or running run per queue may carry a key. The index decides between concurrent submissions (the second
-- inserter waits for the first to commit, then fails with 23505 on runs_live_unique_key and stores nothing), for any
-- path that inserts runs or moves one back to pending; once the run ends the key is free again.
--changeset forgeflow:0009-unique-while-live
ALTER TABLE jobs
    ADD COLUMN unique_key text
        CONSTRAINT jobs_unique_key_length CHECK (char_length(unique_key) BETWEEN 1 AND 200),
    ADD CONSTRAINT jobs_unique_key_one_off CHECK (unique_key IS NULL OR cron_expr IS NULL);
ALTER TABLE runs
    ADD COLUMN unique_key text;
CREATE UNIQUE INDEX runs_live_unique_key ON runs (queue, unique_key)
    WHERE status IN ('pending', 'running') AND unique_key IS NOT NULL;
--rollback DROP INDEX runs_live_unique_key; ALTER TABLE runs DROP COLUMN unique_key; ALTER TABLE jobs DROP COLUMN unique_key;
