--liquibase formatted sql

-- forgeflow_expired_leases: the leader's read of the runs it may recover. First ends the lease rows of holders whose
-- lease expired (ended_at, for good: forgeflow_heartbeat never extends an ended row, forgeflow_claim never claims for
-- one); a heartbeat that extended a row first wins (the row lock orders the two, and the end re-checks the expiry).
-- Then reads, without locks, running runs whose own lease expired and whose holder's row is ended (or absent: runs
-- claimed before 0016), oldest expiry first. forgeflow_end_attempts applies each decision under the same two conditions.

--changeset forgeflow:function-forgeflow_expired_leases runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_expired_leases(p_limit integer, p_now timestamptz)
    RETURNS TABLE (id uuid, job_id uuid, worker_id text, attempt integer, max_attempts integer,
                   cancel_requested boolean, retry_base_seconds integer, retry_max_seconds integer)
    LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := coalesce(p_now, now());
BEGIN
    UPDATE worker_leases w
    SET ended_at = v_now
    WHERE w.instance IN (SELECT x.instance FROM worker_leases x
                         WHERE x.ended_at IS NULL AND x.expires_at < v_now
                         ORDER BY x.instance
                         FOR UPDATE SKIP LOCKED)
      AND w.expires_at < v_now;
    -- ended rows are kept a day, long after any run of theirs was recovered
    DELETE FROM worker_leases w WHERE w.ended_at < v_now - interval '1 day';

    RETURN QUERY
        SELECT r.id, r.job_id, coalesce(r.worker_instance, r.worker_id), r.attempt, r.max_attempts, r.cancel_requested,
               r.retry_base_seconds, r.retry_max_seconds
        FROM runs r
        WHERE r.status = 'running'
          AND r.lease_expires_at < v_now
          AND NOT EXISTS (SELECT 1 FROM worker_leases w WHERE w.instance = coalesce(r.worker_instance, r.worker_id)
                                 AND w.ended_at IS NULL)
        ORDER BY r.lease_expires_at, r.id
        LIMIT p_limit;
END
$$;
--rollback DROP FUNCTION forgeflow_expired_leases(integer, timestamptz);
