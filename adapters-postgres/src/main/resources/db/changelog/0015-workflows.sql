--liquibase formatted sql

-- Workflows (issue 32): a one-off job may wait for parents (job_dependencies); its run waits in status 'waiting',
-- outside every pending index, so the claim never reads it. runs.has_children marks the runs whose end must decide
-- children (a trigger, forgeflow_workflows.sql): the runs of other jobs pay one false test per status change.
-- Batches: jobs created together, with an on_complete job that waits until all of them have ended.

--changeset forgeflow:0015-workflows
ALTER TABLE runs DROP CONSTRAINT runs_status_values;
-- NOT VALID, then VALIDATE: the scan of existing runs does not block their writers
ALTER TABLE runs ADD CONSTRAINT runs_status_values
    CHECK (status IN ('waiting', 'pending', 'running', 'succeeded', 'dead', 'cancelled')) NOT VALID;
ALTER TABLE runs VALIDATE CONSTRAINT runs_status_values;
ALTER TABLE runs ADD COLUMN has_children boolean NOT NULL DEFAULT false;
ALTER TABLE jobs ADD COLUMN on_parent_failure text
    CONSTRAINT jobs_on_parent_failure_values CHECK (on_parent_failure IN ('cancel', 'run', 'wait'));
ALTER TABLE jobs ADD COLUMN batch_id uuid;

CREATE TABLE job_dependencies (
    job_id    uuid     NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    parent_id uuid     NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    position  smallint NOT NULL,
    PRIMARY KEY (job_id, parent_id)
);
CREATE INDEX job_dependencies_parent_idx ON job_dependencies (parent_id, job_id);

-- children whose decision the trigger left to the leader (forgeflow_workflows.sql)
CREATE TABLE workflow_rechecks (
    job_id uuid PRIMARY KEY
);

CREATE TABLE batches (
    id                 uuid        PRIMARY KEY,
    name               text,
    idempotency_key    text        CONSTRAINT batches_idempotency_key_unique UNIQUE,
    request_hash       text        NOT NULL,
    total              integer     NOT NULL,
    job_ids            uuid[]      NOT NULL,
    refs               jsonb       NOT NULL DEFAULT '{}',
    on_complete_job_id uuid,
    created_at         timestamptz NOT NULL DEFAULT now(),
    completed_at       timestamptz,
    succeeded          integer,
    dead               integer,
    cancelled          integer
);
CREATE INDEX batches_open_idx ON batches (created_at, id) WHERE completed_at IS NULL;
-- a batch is open while one of its jobs is live; its jobs in id order for the counts
CREATE INDEX jobs_batch_live_idx ON jobs (batch_id) WHERE batch_id IS NOT NULL AND status IN ('active', 'paused');
CREATE INDEX jobs_batch_idx ON jobs (batch_id, id) WHERE batch_id IS NOT NULL;
--rollback DROP INDEX jobs_batch_idx; DROP INDEX jobs_batch_live_idx; DROP TABLE batches; DROP TABLE workflow_rechecks; DROP TABLE job_dependencies; ALTER TABLE jobs DROP COLUMN batch_id; ALTER TABLE jobs DROP COLUMN on_parent_failure; ALTER TABLE runs DROP COLUMN has_children; ALTER TABLE runs DROP CONSTRAINT runs_status_values; ALTER TABLE runs ADD CONSTRAINT runs_status_values CHECK (status IN ('pending', 'running', 'succeeded', 'dead', 'cancelled'));
