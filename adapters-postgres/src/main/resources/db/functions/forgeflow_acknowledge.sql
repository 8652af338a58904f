--liquibase formatted sql

-- forgeflow_acknowledge: the previous release's entry point for acknowledgements, kept so that its nodes go on working
-- during a rolling restart; it hands the batch to forgeflow_end_attempts, which this release calls directly. Its
-- history before this file is in 0006.

--changeset forgeflow:function-forgeflow_acknowledge runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_acknowledge(p_ids uuid[], p_workers text[], p_attempts integer[], p_next text[],
                                      p_delays bigint[], p_outcomes text[], p_outputs text[], p_errors text[],
                                      p_now timestamptz)
    RETURNS TABLE (id uuid, worker_id text, attempt integer, job_id uuid, status text)
    LANGUAGE sql VOLATILE
AS $$
SELECT * FROM forgeflow_end_attempts(p_ids, p_workers, p_attempts, p_next, p_delays, p_outcomes, p_outputs, p_errors,
                                     p_now)
$$;
