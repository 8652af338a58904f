--liquibase formatted sql

-- forgeflow_claim_key: the name a claim matches a run by (forgeflow_claim's p_executors, RunSql/nextDue.sql): the
-- run's executor, or 'java:<handler>' for a run of executor java ({"handler": "send-receipt", "args": {...}}), so an
-- embedded worker claims only the handlers it has and a standalone node (whose names are plain executors) none of
-- them. Pure and inlined by the planner: other runs are matched on executor alone, their payload is never read.
-- Edited in place (runOnChange).

--changeset forgeflow:function-forgeflow_claim_key runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_claim_key(p_executor text, p_payload jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN p_executor = 'java' THEN 'java:' || coalesce(p_payload ->> 'handler', '') ELSE p_executor END
$$;
--rollback DROP FUNCTION forgeflow_claim_key(text, jsonb);
