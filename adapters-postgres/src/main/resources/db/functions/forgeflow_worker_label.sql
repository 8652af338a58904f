--liquibase formatted sql

-- forgeflow_worker_label: the label (FORGEFLOW_WORKER_ID) of a worker's holder, '<label>#<32 hex incarnation>'
-- (0016-worker-incarnations.sql); a holder without an incarnation is its own label. Pure: people read labels
-- (runs.worker_id, attempts, nodes), fences compare whole holders (runs.worker_instance). Edited in place.

--changeset forgeflow:function-forgeflow_worker_label runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_worker_label(p_holder text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT regexp_replace(p_holder, '#[0-9a-f]{32}$', '')
$$;
--rollback DROP FUNCTION forgeflow_worker_label(text);
