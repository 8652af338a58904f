--liquibase formatted sql

-- forgeflow_trace_child: the traceparent of a new span under p_parent (same trace id and flags, a random span id),
-- or, with p_new_trace, of a new trace's root with p_parent's flags (a cron tick: the run links to its job's
-- submission). Null for a null parent: runs of untraced jobs stay untraced. Called per inserted run; reads nothing.
-- Edited in place (runOnChange).

--changeset forgeflow:function-forgeflow_trace_child runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_trace_child(p_parent text, p_new_trace boolean DEFAULT false) RETURNS text
    LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
SELECT CASE WHEN p_parent IS NULL THEN NULL
            ELSE '00-' || CASE WHEN p_new_trace THEN replace(gen_random_uuid()::text, '-', '')
                               ELSE substr(p_parent, 4, 32) END
                 || '-' || left(replace(gen_random_uuid()::text, '-', ''), 16) || '-' || substr(p_parent, 54, 2) END
$$;
--rollback DROP FUNCTION forgeflow_trace_child(text, boolean);
