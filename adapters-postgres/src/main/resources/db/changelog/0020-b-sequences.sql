--liquibase formatted sql

-- Issue 44, sequences: runs of one-off jobs with the same sequence_key start one at a time in submission order
-- (db/functions/forgeflow_sequences.sql). A run behind the head of its sequence waits in status 'waiting', outside every
-- pending index, so the claim never reads it and runs without a key pay nothing there; sequence_pos (from one database
-- sequence, taken under the key's lock) is the submission order. on_dead: what the sequence does when one of its runs
-- is dead: 'block' (default: the rest wait until it is requeued) or 'continue'. The runs' columns carry no CHECK, so
-- adding them is a catalogue change only; the jobs' columns are checked there.

--changeset forgeflow:0020-b-sequences splitStatements:false
ALTER TABLE jobs
    ADD COLUMN sequence_key text
        CONSTRAINT jobs_sequence_key_length CHECK (char_length(sequence_key) BETWEEN 1 AND 200),
    ADD COLUMN sequence_on_dead text
        CONSTRAINT jobs_sequence_on_dead_values CHECK (sequence_on_dead IN ('block', 'continue')),
    ADD CONSTRAINT jobs_sequence_one_off CHECK (sequence_key IS NULL OR cron_expr IS NULL);
ALTER TABLE runs
    ADD COLUMN sequence_key text,
    ADD COLUMN sequence_on_dead text,
    ADD COLUMN sequence_pos bigint;
CREATE SEQUENCE forgeflow_sequence_positions;
-- every lookup of a sequence: its live runs, its blocker, its first waiting run; only runs with a key are indexed
CREATE INDEX runs_sequence_idx ON runs (sequence_key, status, sequence_pos) WHERE sequence_key IS NOT NULL;
-- keys whose head ended while a submitter held the key's lock: the leader advances them (forgeflow_sequence_recheck)
CREATE TABLE sequence_rechecks (
    sequence_key text        PRIMARY KEY,
    queued_at    timestamptz NOT NULL DEFAULT now()
);
--rollback DROP TABLE sequence_rechecks; DROP INDEX runs_sequence_idx; DROP SEQUENCE forgeflow_sequence_positions; ALTER TABLE runs DROP COLUMN sequence_pos, DROP COLUMN sequence_on_dead, DROP COLUMN sequence_key; ALTER TABLE jobs DROP CONSTRAINT jobs_sequence_one_off, DROP COLUMN sequence_on_dead, DROP COLUMN sequence_key;
