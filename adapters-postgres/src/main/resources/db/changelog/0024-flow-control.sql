--liquibase formatted sql

-- Issue 44, debounce and throttle (db/functions/forgeflow_flow.sql). A job keeps what was submitted (debounce,
-- throttle: checked by the domain's Debounce and Throttle); its runs carry what the engine reads. Throttle: at most
-- throttle_count starts of runs sharing throttle_key per throttle_per_seconds; each start is a row of throttle_starts
-- until its window ends (expires_at), so an idle key holds at most throttle_count rows, swept once expired. Debounce:
-- the first run of a debounced submission carries debounce_key and debounce_until (trailing: the first submission +
-- max wait; leading: + period); debounced counts the submissions it absorbed. Every new runs column is nullable or
-- has a constant default: a catalogue change only. Runs without them pay nothing: both indexes are partial.

--changeset forgeflow:0024-flow-control splitStatements:false
ALTER TABLE jobs
    ADD COLUMN debounce jsonb
        CONSTRAINT jobs_debounce_shape CHECK (jsonb_typeof(debounce -> 'key') = 'string'
                                              AND jsonb_typeof(debounce -> 'period_seconds') = 'number'
                                              AND debounce ->> 'edge' IN ('trailing', 'leading')),
    ADD COLUMN throttle jsonb
        CONSTRAINT jobs_throttle_shape CHECK (jsonb_typeof(throttle -> 'key') = 'string'
                                              AND (throttle ->> 'count')::integer BETWEEN 1 AND 100000
                                              AND (throttle ->> 'per_seconds')::integer BETWEEN 1 AND 86400),
    ADD CONSTRAINT jobs_debounce_one_off CHECK (debounce IS NULL OR cron_expr IS NULL);
ALTER TABLE runs
    ADD COLUMN throttle_key text,
    ADD COLUMN throttle_count integer,
    ADD COLUMN throttle_per_seconds integer,
    ADD COLUMN debounce_key text,
    ADD COLUMN debounce_until timestamptz,
    ADD COLUMN debounced integer NOT NULL DEFAULT 0;
-- the claim's probe and candidates of throttled runs (as runs_pending_keyed_idx for concurrency keys)
CREATE INDEX runs_pending_throttled_idx ON runs (priority, scheduled_for, id)
    WHERE status = 'pending' AND throttle_key IS NOT NULL;
-- a debounce key's newest run (ids are time-ordered)
CREATE INDEX runs_debounce_idx ON runs (debounce_key, id DESC) WHERE debounce_key IS NOT NULL;
CREATE TABLE throttle_starts (
    throttle_key text        NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX throttle_starts_key_idx ON throttle_starts (throttle_key, expires_at);
CREATE INDEX throttle_starts_expiry_idx ON throttle_starts (expires_at);
--rollback DROP TABLE throttle_starts; DROP INDEX runs_debounce_idx; DROP INDEX runs_pending_throttled_idx; ALTER TABLE runs DROP COLUMN debounced, DROP COLUMN debounce_until, DROP COLUMN debounce_key, DROP COLUMN throttle_per_seconds, DROP COLUMN throttle_count, DROP COLUMN throttle_key; ALTER TABLE jobs DROP CONSTRAINT jobs_debounce_one_off, DROP COLUMN throttle, DROP COLUMN debounce;
