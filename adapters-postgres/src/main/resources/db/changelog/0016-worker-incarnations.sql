--liquibase formatted sql

-- Fenced worker identities (issue 37). Every worker process claims under a holder of its own, its label
-- (FORGEFLOW_WORKER_ID) plus an incarnation made at start ('node-1#<32 hex>'); runs.worker_instance is the holder that
-- fences every later write, runs.worker_id stays the label people read. worker_leases has one row per holder, written
-- by that process alone (its heartbeat) and ended once by the leader (ended_at, never cleared): a run is recovered only
-- when its own lease expired and its holder's row is ended (or absent, for runs claimed before this change). So no
-- lock an application or an operator holds on a run can cost a live worker its runs, and an ended holder is dead for
-- good: it can neither extend nor claim again, and its process starts a new incarnation.

--changeset forgeflow:0016-worker-incarnations
CREATE TABLE worker_leases (
    instance   text        PRIMARY KEY,
    worker_id  text        NOT NULL,
    started_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    lease_ms   bigint      NOT NULL CONSTRAINT worker_leases_lease_positive CHECK (lease_ms > 0),
    ended_at   timestamptz
);
ALTER TABLE runs ADD COLUMN worker_instance text;
-- runs running now were claimed under their label: it is their holder
UPDATE runs SET worker_instance = worker_id WHERE status = 'running';
--rollback ALTER TABLE runs DROP COLUMN worker_instance; DROP TABLE worker_leases;
