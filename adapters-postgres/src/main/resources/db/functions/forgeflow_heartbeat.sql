--liquibase formatted sql

-- forgeflow_heartbeat: one heartbeat of a worker holder (0016-worker-incarnations.sql). Writes the holder's own lease
-- row (no one else writes it but the leader's end of it, which never waits long: forgeflow_expired_leases) and never
-- waits on a lock on runs: it extends the held runs' own leases with SKIP LOCKED (best effort: what protects a held run
-- is the holder's row) and reads the holder's running runs without locking them. A row the leader ended is never
-- extended again: the holder is dead for good (alive = false, one row, nothing else returned).
-- Returns each run running under the holder: held (named in p_ids with its attempt: confirmed) or not (a claim whose
-- reply was lost), and whether an operator asked to cancel it. Called by RunSql/heartbeatHeld.sql.

--changeset forgeflow:function-forgeflow_heartbeat runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_heartbeat(p_holder text, p_ids uuid[], p_attempts integer[], p_lease_ms bigint,
                                               p_now timestamptz)
    RETURNS TABLE (id uuid, attempt integer, cancel_requested boolean, held boolean, alive boolean)
    LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    v_now   timestamptz := coalesce(p_now, now());
    v_label text := forgeflow_worker_label(p_holder);
    v_alive boolean;
BEGIN
    INSERT INTO worker_leases AS w (instance, worker_id, started_at, expires_at, lease_ms)
    VALUES (p_holder, v_label, v_now, v_now + p_lease_ms * interval '1 millisecond', p_lease_ms)
    ON CONFLICT (instance) DO UPDATE
        SET expires_at = excluded.expires_at, lease_ms = excluded.lease_ms
        WHERE w.ended_at IS NULL
    RETURNING true INTO v_alive;
    IF v_alive IS NULL THEN
        RETURN QUERY SELECT CAST(NULL AS uuid), CAST(NULL AS integer), false, false, false;
        RETURN;
    END IF;

    UPDATE runs r
    SET lease_expires_at = v_now + p_lease_ms * interval '1 millisecond'
    WHERE r.id IN (SELECT x.id
                   FROM runs x
                   JOIN unnest(p_ids, p_attempts) AS h (id, attempt) ON h.id = x.id AND h.attempt = x.attempt
                   WHERE x.status = 'running' AND coalesce(x.worker_instance, x.worker_id) = p_holder
                   ORDER BY x.id
                   FOR UPDATE OF x SKIP LOCKED);

    RETURN QUERY
        SELECT r.id, r.attempt, r.cancel_requested,
               EXISTS (SELECT 1 FROM unnest(p_ids, p_attempts) AS h (id, attempt)
                       WHERE h.id = r.id AND h.attempt = r.attempt),
               true
        FROM runs r
        WHERE r.worker_id = v_label AND r.status = 'running'
          AND coalesce(r.worker_instance, r.worker_id) = p_holder;
END
$$;
--rollback DROP FUNCTION forgeflow_heartbeat(text, uuid[], integer[], bigint, timestamptz);
