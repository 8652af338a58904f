--liquibase formatted sql

-- Issue 42, tenants (part one): every job, run and batch belongs to one tenant ('default' for every row made before
-- tenants, and for every row an older node makes). A run's tenant is its job's, copied where the run is inserted.
-- The keys the engine matches by equality (idempotency, unique, concurrency, sequence, debounce and throttle keys) are
-- stored scoped: a key of tenant 'default' as given, any other tenant's as tenant || U+001F || key (U+001F may appear
-- in neither a tenant name nor a key). The engine's SQL and indexes stay as they are and still compare plain strings,
-- and two tenants never share a key; answers show the key as given (Rows unscopes it). The length limits of keys grow
-- by the longest prefix (64). All three columns have a constant default: a catalogue change only.

--changeset forgeflow:0025-tenants splitStatements:false
ALTER TABLE jobs
    ADD COLUMN tenant text NOT NULL DEFAULT 'default'
        CONSTRAINT jobs_tenant_name CHECK (tenant ~ '^[a-z0-9_.-]{1,63}$'),
    DROP CONSTRAINT jobs_idempotency_key_length,
    ADD CONSTRAINT jobs_idempotency_key_length CHECK (char_length(idempotency_key) BETWEEN 1 AND 264) NOT VALID,
    DROP CONSTRAINT jobs_unique_key_length,
    ADD CONSTRAINT jobs_unique_key_length CHECK (char_length(unique_key) BETWEEN 1 AND 264) NOT VALID,
    DROP CONSTRAINT jobs_concurrency_key_length,
    ADD CONSTRAINT jobs_concurrency_key_length CHECK (char_length(concurrency_key) BETWEEN 1 AND 264) NOT VALID,
    DROP CONSTRAINT jobs_sequence_key_length,
    ADD CONSTRAINT jobs_sequence_key_length CHECK (char_length(sequence_key) BETWEEN 1 AND 264) NOT VALID;
ALTER TABLE runs
    ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE batches
    ADD COLUMN tenant text NOT NULL DEFAULT 'default'
        CONSTRAINT batches_tenant_name CHECK (tenant ~ '^[a-z0-9_.-]{1,63}$');
-- the lists of one tenant other than default (the default tenant's rows are in none: they cost nothing). Runs have no
-- such index: two partial ones on runs, with predicates false for every default run, cost W1's drain 10 % (three
-- alternated pairs, 2026-12-07, docs/BENCHMARKS.md); a tenant's run list and counts filter instead.
CREATE INDEX jobs_tenant_idx ON jobs (tenant, id DESC) WHERE tenant <> 'default';
CREATE INDEX batches_tenant_idx ON batches (tenant, id DESC) WHERE tenant <> 'default';
-- a key in its stored form (Tenants.scopedKey): for SQL that writes keys into a row of known tenant
CREATE FUNCTION forgeflow_scoped_key(p_tenant text, p_key text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$
SELECT CASE WHEN p_key IS NULL OR p_tenant IS NULL OR p_tenant = 'default' THEN p_key
            ELSE p_tenant || chr(31) || p_key END
$$;
--rollback DROP FUNCTION forgeflow_scoped_key(text, text); DROP INDEX batches_tenant_idx; DROP INDEX jobs_tenant_idx; ALTER TABLE batches DROP COLUMN tenant; ALTER TABLE runs DROP COLUMN tenant; ALTER TABLE jobs DROP COLUMN tenant;
