--liquibase formatted sql

-- In-process handlers (issue 25): embedded workers (module embedded) run runs of executor 'java', whose payload names
-- a handler ({"handler": "send-receipt", "args": {...}}). Each live embedded worker keeps a row per handler it has
-- here (PostgresHandlerRegistry): what the API reads to show a run or job that no live worker can take as waiting
-- ("waiting_for": "handler send-receipt"). A worker claims only its handlers' runs (db/functions/forgeflow_claim_key.sql).

--changeset forgeflow:0010-handlers-registry
-- one row per (handler, worker): written at the worker's start and every heartbeat with expires_at a few heartbeats
-- ahead, deleted when it stops; a killed worker's rows simply expire (and are deleted a day later by the next write).
CREATE TABLE handlers (
    name       text        NOT NULL CONSTRAINT handlers_name_length CHECK (char_length(name) BETWEEN 1 AND 100),
    worker_id  text        NOT NULL CONSTRAINT handlers_worker_length CHECK (char_length(worker_id) BETWEEN 1 AND 200),
    seen_at    timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (name, worker_id)
);
--rollback DROP TABLE handlers;
