--liquibase formatted sql

-- Issue 42: a queue's settings are a tenant's. queues is keyed by (tenant, name): the pause switch, max_running and
-- rate_limit of (acme, reports) govern acme's runs of reports and no one else's, and its counts are of them.
-- queue_starts says whose starts it counts. Every existing row is the default tenant's, so a cluster that never names
-- a tenant behaves as before. Both tables are small (settings, and starts within a window): the new key is built under
-- a short lock. Nodes of earlier releases cannot change queue settings once this has run (their upsert names the old
-- key): README "Upgrading".

--changeset forgeflow:0027-tenant-queues
ALTER TABLE queues
    ADD COLUMN tenant text NOT NULL DEFAULT 'default' CONSTRAINT queues_tenant CHECK (tenant ~ '^[a-z0-9_.-]{1,63}$');
ALTER TABLE queues DROP CONSTRAINT queues_pkey;
ALTER TABLE queues ADD CONSTRAINT queues_pkey PRIMARY KEY (tenant, name);
ALTER TABLE queue_starts ADD COLUMN tenant text NOT NULL DEFAULT 'default';
DROP INDEX queue_starts_queue_time_idx;
CREATE INDEX queue_starts_tenant_queue_time_idx ON queue_starts (tenant, queue, started_at);
--rollback DROP INDEX queue_starts_tenant_queue_time_idx; DELETE FROM queue_starts WHERE tenant <> 'default'; ALTER TABLE queue_starts DROP COLUMN tenant; CREATE INDEX queue_starts_queue_time_idx ON queue_starts (queue, started_at); DELETE FROM queues WHERE tenant <> 'default'; ALTER TABLE queues DROP CONSTRAINT queues_pkey; ALTER TABLE queues DROP COLUMN tenant; ALTER TABLE queues ADD CONSTRAINT queues_pkey PRIMARY KEY (name);

--changeset forgeflow:0027-one-claim
-- The claim of 0004/0005 (without the hint's arguments) was left beside 0007's when that one was added: a second
-- home for pending -> running that knows neither worker holders nor tenants, nor a queue's tenant. Nothing has called
-- it since 0007 (RunSql/claim.sql names the hint's arguments). RunLifecycleSqlIT holds that no function of ours has
-- two signatures.
DROP FUNCTION IF EXISTS forgeflow_claim(text, text[], text[], text[], integer, bigint, timestamptz);
--rollback SELECT 1;
