--liquibase formatted sql

-- Issue 42, tenants (part two): fair share between tenants at claim time, and per-tenant limits.
-- tenants: what operators set per tenant (PUT /api/tenants/{name}); no row reads as weight 1, no limits. Written by
--   operators only.
-- tenant_shares: the claim's virtual time per tenant (stride scheduling: a tenant's pass grows by claimed / weight,
--   and the due tenant with the lowest pass is served first). Written by claims only, under the row's lock, taken in
--   name order.
-- tenant_starts: starts of rate-limited tenants in their window, like queue_starts.
-- runs_pending_tenant_idx: a tenant's pending runs in claim order, and the tenants that have pending runs (one
--   descent each); only claims of a cluster where two tenants have pending runs read it.

--changeset forgeflow:0026-tenant-shares splitStatements:false
CREATE TABLE tenants (
    name             text PRIMARY KEY CONSTRAINT tenants_name CHECK (name ~ '^[a-z0-9_.-]{1,63}$'),
    weight           integer NOT NULL DEFAULT 1 CONSTRAINT tenants_weight CHECK (weight BETWEEN 1 AND 1000),
    max_running      integer CONSTRAINT tenants_max_running CHECK (max_running BETWEEN 1 AND 100000),
    rate_count       integer CONSTRAINT tenants_rate_count CHECK (rate_count BETWEEN 1 AND 1000000),
    rate_per_seconds integer CONSTRAINT tenants_rate_per_seconds CHECK (rate_per_seconds BETWEEN 1 AND 86400),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tenants_rate_pair CHECK ((rate_count IS NULL) = (rate_per_seconds IS NULL))
);
CREATE TABLE tenant_shares (
    tenant text PRIMARY KEY,
    pass   double precision NOT NULL DEFAULT 0
);
CREATE TABLE tenant_starts (
    tenant     text NOT NULL,
    started_at timestamptz NOT NULL
);
CREATE INDEX tenant_starts_idx ON tenant_starts (tenant, started_at);
CREATE INDEX runs_pending_tenant_idx ON runs (tenant, priority, scheduled_for, id) WHERE status = 'pending';
--rollback DROP INDEX runs_pending_tenant_idx; DROP TABLE tenant_starts; DROP TABLE tenant_shares; DROP TABLE tenants;
