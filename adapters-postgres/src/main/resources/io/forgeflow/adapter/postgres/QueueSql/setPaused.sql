-- setPaused: a tenant's queue's pause switch, on every node; every claim of the tenant's runs reads it, so no node
-- starts a run of it after this commits
INSERT INTO queues (tenant, name, paused, updated_at)
VALUES (:tenant, :name, :paused, coalesce(CAST(:now AS timestamptz), now()))
ON CONFLICT (tenant, name) DO UPDATE
SET paused     = EXCLUDED.paused,
    updated_at = EXCLUDED.updated_at
