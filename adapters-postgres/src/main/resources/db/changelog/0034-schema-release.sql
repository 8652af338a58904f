--liquibase formatted sql

-- What the last migration of this database left: the fingerprint of the release's schema files and the state of
-- Liquibase's changelog table then. A node whose release has the same fingerprint, on a changelog table in the same
-- state, skips Liquibase at start (PostgresMigrations): about a second of a node's start. Any change to the changelog
-- table (a changeset applied, re-run or rolled back, by whatever release) makes the next start run Liquibase again.
-- A new table only: no lock on another.

--changeset forgeflow:0034-schema-release
CREATE TABLE schema_release (
    id              boolean PRIMARY KEY DEFAULT true CHECK (id),
    fingerprint     text        NOT NULL,
    changelog_state text        NOT NULL,
    migrated_at     timestamptz NOT NULL DEFAULT now()
);
--rollback DROP TABLE schema_release;
