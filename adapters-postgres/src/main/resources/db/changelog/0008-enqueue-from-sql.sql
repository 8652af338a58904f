--liquibase formatted sql

-- Enqueueing from the application's own transaction (issue 24): the executors the cluster knows, for the checks of
-- enqueue() (db/functions/forgeflow_enqueue.sql), and which way a job came in.

--changeset forgeflow:enqueue-executors-registry
-- one row per executor some node knows; every node upserts its executors at start (PostgresExecutorCatalog). A row
-- is never deleted by a node: an executor that a stopped node knew is still accepted, as REST accepts it on any node
-- that knows it.
CREATE TABLE executors (
    name          text        PRIMARY KEY CONSTRAINT executors_name_length CHECK (char_length(name) BETWEEN 1 AND 100),
    first_seen_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_seen_by  text        NOT NULL
);
--rollback DROP TABLE executors;

--changeset forgeflow:enqueue-submitted-via
-- 'rest' (the API, the CLI, the desktop) or 'sql' (enqueue(), from an application's transaction)
ALTER TABLE jobs ADD COLUMN submitted_via text NOT NULL DEFAULT 'rest'
    CONSTRAINT jobs_submitted_via_values CHECK (submitted_via IN ('rest', 'sql'));
--rollback ALTER TABLE jobs DROP COLUMN submitted_via;

--changeset forgeflow:enqueue-uuid-v7 splitStatements:false runOnChange:true
-- a UUID version 7 (48 bits of Unix milliseconds, version, random bits), as domain.id.Ids makes them in Java. A
-- standard SQL body: its names are bound when it is created, so it needs no pinned search_path, and without one the
-- planner inlines it into its callers (a call with SET cost about 20 us, two per enqueue; issue 40).
CREATE OR REPLACE FUNCTION forgeflow_uuid_v7() RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
           PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
           FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid;
--rollback DROP FUNCTION forgeflow_uuid_v7();
