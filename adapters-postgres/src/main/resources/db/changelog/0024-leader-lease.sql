--liquibase formatted sql

-- Issue 46: leadership without a session (behind PgBouncer in transaction mode with no FORGEFLOW_DATABASE_SESSION_URL):
-- one lease row per election, renewed by its holder before expires_at, taken over after it with term + 1
-- (LeaseLeaderElection). nodes: how a node is woken and elected, its lease term, and its connections (the heartbeat).

--changeset forgeflow:0024-leader-lease
CREATE TABLE leader_lease (
    name       text        PRIMARY KEY,
    holder     text        NOT NULL,
    term       bigint      NOT NULL CONSTRAINT leader_lease_term CHECK (term > 0),
    expires_at timestamptz NOT NULL
);
ALTER TABLE nodes
    ADD COLUMN wake_ups text,
    ADD COLUMN leadership text,
    ADD COLUMN leader_term bigint,
    ADD COLUMN pool_max integer,
    ADD COLUMN pool_in_use integer,
    ADD COLUMN session_connections integer;
--rollback DROP TABLE leader_lease; ALTER TABLE nodes DROP COLUMN wake_ups, DROP COLUMN leadership, DROP COLUMN leader_term, DROP COLUMN pool_max, DROP COLUMN pool_in_use, DROP COLUMN session_connections;
