-- setPaused: the cluster-wide pause switch; every claim reads it, so no node starts a run of a paused queue after this
-- commits
INSERT INTO queues (name, paused, updated_at)
VALUES (:name, :paused, coalesce(CAST(:now AS timestamptz), now()))
ON CONFLICT (name) DO UPDATE
SET paused     = EXCLUDED.paused,
    updated_at = EXCLUDED.updated_at
