--liquibase formatted sql

-- forgeflow_expired_leases: the leader's read of the runs it may recover: without locks, running runs whose own lease
-- expired and whose holder's lease expired too (or was ended, or is absent: runs claimed before 0016), oldest expiry
-- first. forgeflow_end_attempts ends the holder and applies each decision only if both still hold then. Also drops the
-- rows of holders ended more than a day ago.

--changeset forgeflow:function-forgeflow_expired_leases runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_expired_leases(p_limit integer, p_now timestamptz)
    RETURNS TABLE (id uuid, job_id uuid, worker_id text, attempt integer, max_attempts integer,
                   cancel_requested boolean, retry_base_seconds integer, retry_max_seconds integer)
    LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := coalesce(p_now, now());
BEGIN
    -- ended rows are kept a day, long after any run of theirs was recovered
    DELETE FROM worker_leases w WHERE w.ended_at < v_now - interval '1 day';

    RETURN QUERY
        SELECT r.id, r.job_id, coalesce(r.worker_instance, r.worker_id), r.attempt, r.max_attempts, r.cancel_requested,
               r.retry_base_seconds, r.retry_max_seconds
        FROM runs r
        WHERE r.status = 'running'
          AND r.lease_expires_at < v_now
          AND NOT EXISTS (SELECT 1 FROM worker_leases w WHERE w.instance = coalesce(r.worker_instance, r.worker_id)
                                 AND w.ended_at IS NULL AND w.expires_at >= v_now)
        ORDER BY r.lease_expires_at, r.id
        LIMIT p_limit;
END
$$;
--rollback DROP FUNCTION forgeflow_expired_leases(integer, timestamptz);
