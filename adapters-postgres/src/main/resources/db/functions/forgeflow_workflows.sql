--liquibase formatted sql

-- Workflows (docs/API.md, "Workflows"). A child job's run waits (status 'waiting') until its parents decide it:
-- forgeflow_resolve_child looks at the latest run of each parent and, by the child's on_parent_failure, moves the
-- waiting run to pending, cancels it, or leaves it. It runs where a parent's run ends: the trigger below fires on
-- every status change of a run marked has_children into succeeded, dead or cancelled, in the transaction of that
-- change (acknowledgement, lease expiry, cancel, pause, delete). The child's waiting run is locked before the parents
-- are read (each read a statement of its own, so it sees what committed before the lock). The trigger never waits for
-- that lock (two transactions ending parents of two shared children could deadlock): when another transaction holds
-- it, the child goes to workflow_rechecks and the leader decides it after both commit (forgeflow_recheck_children). forgeflow_link_parents marks the parents' runs and stores the edges: its update of those runs waits for,
-- or holds off, a concurrent end, so a parent never ends unseen by a child being linked.

--changeset forgeflow:function-forgeflow_workflows runOnChange:true splitStatements:false
DROP FUNCTION IF EXISTS forgeflow_resolve_child(uuid);
DROP FUNCTION IF EXISTS forgeflow_resolve_child(uuid, boolean);
-- p_removed: a parent being removed (purge, retention): it counts as cancelled. A parent with no run left (retention
-- removed its history) counts as cancelled too: it ended long ago.
CREATE OR REPLACE FUNCTION forgeflow_resolve_child(p_child uuid, p_wait boolean, p_removed uuid DEFAULT NULL)
    RETURNS text
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_run     uuid;
    v_policy  text;
    v_total   integer;
    v_ok      integer;
    v_failed  integer;
    v_parent  uuid;
    v_pstatus text;
    v_pname   text;
    v_now     timestamptz := now();
BEGIN
    IF p_wait THEN
        SELECT r.id INTO v_run FROM runs r WHERE r.job_id = p_child AND r.status = 'waiting' ORDER BY r.id LIMIT 1
            FOR UPDATE;
    ELSE
        SELECT r.id INTO v_run FROM runs r WHERE r.job_id = p_child AND r.status = 'waiting' ORDER BY r.id LIMIT 1
            FOR UPDATE SKIP LOCKED;
        IF NOT FOUND AND EXISTS (SELECT 1 FROM runs r WHERE r.job_id = p_child AND r.status = 'waiting') THEN
            -- another transaction holds it (deciding it for another parent, or changing it): waiting here could
            -- deadlock with it, so the leader decides it again after both commit
            INSERT INTO workflow_rechecks (job_id) VALUES (p_child) ON CONFLICT DO NOTHING;
            RETURN NULL;
        END IF;
    END IF;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(j.on_parent_failure, 'cancel') INTO v_policy FROM jobs j WHERE j.id = p_child;
    SELECT count(*), count(*) FILTER (WHERE p.status = 'succeeded' AND d.parent_id IS DISTINCT FROM p_removed),
           count(*) FILTER (WHERE p.status IN ('dead', 'cancelled') OR p.status IS NULL
                                  OR d.parent_id = p_removed)
    INTO v_total, v_ok, v_failed
    FROM job_dependencies d
    LEFT JOIN LATERAL (SELECT r.status FROM runs r WHERE r.job_id = d.parent_id ORDER BY r.id DESC LIMIT 1) p ON true
    WHERE d.job_id = p_child;
    IF v_total = 0 THEN
        RETURN NULL;
    END IF;
    IF v_failed > 0 AND v_policy = 'cancel' THEN
        SELECT d.parent_id, CASE WHEN d.parent_id = p_removed THEN 'removed'
                                 ELSE coalesce(p.status, 'long ago (its runs were removed)') END, j.name
        INTO v_parent, v_pstatus, v_pname
        FROM job_dependencies d
        JOIN jobs j ON j.id = d.parent_id
        LEFT JOIN LATERAL (SELECT r.status FROM runs r WHERE r.job_id = d.parent_id ORDER BY r.id DESC LIMIT 1) p
            ON true
        WHERE d.job_id = p_child
          AND (p.status IN ('dead', 'cancelled') OR p.status IS NULL OR d.parent_id = p_removed)
        ORDER BY d.position
        LIMIT 1;
        UPDATE runs SET status = 'cancelled', finished_at = v_now,
                        error = 'cancelled: parent job ' || v_parent || ' (' || v_pname || ') ended ' || v_pstatus
        WHERE id = v_run;
        UPDATE jobs SET status = 'completed', next_run_at = NULL, updated_at = v_now
        WHERE id = p_child AND status IN ('active', 'paused') AND cron_expr IS NULL;
        PERFORM pg_notify('forgeflow_runs', v_run || ',' || p_child || ',cancelled,0,'
                          || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        RETURN 'cancelled';
    END IF;
    IF v_ok = v_total OR (v_policy = 'run' AND v_ok + v_failed = v_total) THEN
        UPDATE runs SET status = 'pending', scheduled_for = greatest(scheduled_for, v_now) WHERE id = v_run;
        PERFORM pg_notify('forgeflow_runs', v_run || ',' || p_child || ',pending,0,'
                          || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        PERFORM pg_notify('forgeflow_due', '');
        RETURN 'pending';
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION forgeflow_resolve_children(p_parent uuid) RETURNS void
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_child uuid;
BEGIN
    FOR v_child IN SELECT d.job_id FROM job_dependencies d WHERE d.parent_id = p_parent ORDER BY d.job_id LOOP
        PERFORM forgeflow_resolve_child(v_child, false);
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION forgeflow_run_ended_trigger() RETURNS trigger
    LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM forgeflow_resolve_children(NEW.job_id);
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS runs_decide_children ON runs;
CREATE TRIGGER runs_decide_children
    AFTER UPDATE OF status ON runs
    FOR EACH ROW
    WHEN (NEW.has_children AND NEW.status IN ('succeeded', 'dead', 'cancelled') AND OLD.status <> NEW.status)
    EXECUTE FUNCTION forgeflow_run_ended_trigger();

-- A parent job removed for good (purge, retention) decides its waiting children as if it had been cancelled, before
-- its edges go with it (ON DELETE CASCADE): their on_parent_failure decides, and their batch can complete.
CREATE OR REPLACE FUNCTION forgeflow_parent_removed_trigger() RETURNS trigger
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_child uuid;
BEGIN
    FOR v_child IN SELECT d.job_id FROM job_dependencies d WHERE d.parent_id = OLD.id ORDER BY d.job_id LOOP
        PERFORM forgeflow_resolve_child(v_child, true, OLD.id);
    END LOOP;
    RETURN OLD;
END
$$;

DROP TRIGGER IF EXISTS jobs_decide_children_on_removal ON jobs;
CREATE TRIGGER jobs_decide_children_on_removal
    BEFORE DELETE ON jobs
    FOR EACH ROW
    EXECUTE FUNCTION forgeflow_parent_removed_trigger();

-- A parent's run requeued (dead or cancelled -> pending): the children its end cancelled wait again, so a fixed
-- parent finishes the workflow. Returns how many were reopened.
CREATE OR REPLACE FUNCTION forgeflow_reopen_children(p_parent uuid) RETURNS integer
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_count integer := 0;
    v_run   uuid;
    v_child uuid;
BEGIN
    FOR v_run, v_child IN
        SELECT l.id, d.job_id
        FROM job_dependencies d
        JOIN LATERAL (SELECT r.id, r.status, r.error FROM runs r WHERE r.job_id = d.job_id ORDER BY r.id DESC LIMIT 1) l
            ON true
        WHERE d.parent_id = p_parent AND l.status = 'cancelled'
          AND l.error LIKE 'cancelled: parent job ' || p_parent || ' %'
        ORDER BY l.id
    LOOP
        UPDATE runs SET status = 'waiting', finished_at = NULL, error = NULL WHERE id = v_run AND status = 'cancelled';
        UPDATE jobs SET status = 'active', updated_at = now() WHERE id = v_child AND status = 'completed';
        PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_child || ',waiting,0,'
                          || floor(extract(epoch FROM now()) * 1000)::bigint || ',');
        v_count := v_count + 1;
    END LOOP;
    RETURN v_count;
END
$$;

-- Links a new child (its job and waiting run already inserted) to its parents, then decides it once (parents that
-- ended before the link). SQLSTATE 22023 with COLUMN depends_on for a parent that is unknown or recurring. A parent in
-- another tenant than the child's is unknown to it (the same answer: nothing tells it exists). Every path that links
-- parents (a submission, a batch, enqueue) comes through here.
CREATE OR REPLACE FUNCTION forgeflow_link_parents(p_child uuid, p_parents uuid[]) RETURNS text
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_missing uuid;
    v_cron    uuid;
BEGIN
    -- the parents' runs first (runs before jobs, as every writer locks them), then the parent jobs
    UPDATE runs r SET has_children = true
    WHERE r.id IN (SELECT x.id FROM runs x WHERE x.job_id = ANY (p_parents) AND NOT x.has_children ORDER BY x.id
                   FOR UPDATE);
    -- and every parent run shared until commit (also those an earlier child marked): a parent's end waits for this
    -- link to commit and then sees the new edge, or this link waits for that end and then sees the parent ended
    PERFORM 1 FROM runs x WHERE x.job_id = ANY (p_parents) ORDER BY x.id FOR SHARE;
    SELECT p.id INTO v_missing
    FROM unnest(p_parents) WITH ORDINALITY AS p (id, n)
    WHERE NOT EXISTS (SELECT 1 FROM jobs j
                      WHERE j.id = p.id AND j.status <> 'deleted'
                        AND j.tenant = (SELECT c.tenant FROM jobs c WHERE c.id = p_child))
    ORDER BY p.n LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'depends_on: no job %: give the ids of existing one-off jobs', v_missing
            USING ERRCODE = '22023', COLUMN = 'depends_on';
    END IF;
    SELECT p.id INTO v_cron
    FROM unnest(p_parents) WITH ORDINALITY AS p (id, n)
    JOIN jobs j ON j.id = p.id
    WHERE j.cron_expr IS NOT NULL
    ORDER BY p.n LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'depends_on: job % is recurring: a parent must be a one-off job', v_cron
            USING ERRCODE = '22023', COLUMN = 'depends_on';
    END IF;
    PERFORM 1 FROM jobs j WHERE j.id = ANY (p_parents) ORDER BY j.id FOR SHARE;
    -- runs a resume inserted for a parent since the first update
    UPDATE runs r SET has_children = true WHERE r.job_id = ANY (p_parents) AND NOT r.has_children;
    INSERT INTO job_dependencies (job_id, parent_id, position)
    SELECT p_child, p.id, p.n FROM unnest(p_parents) WITH ORDINALITY AS p (id, n)
    ON CONFLICT DO NOTHING;
    RETURN forgeflow_resolve_child(p_child, true);
END
$$;
-- The leader's sweep of children the trigger could not lock (and of sequences, issue 44); returns how many it decided.
CREATE OR REPLACE FUNCTION forgeflow_recheck_children(p_limit integer) RETURNS integer
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_child uuid;
    v_count integer := 0;
BEGIN
    FOR v_child IN
        DELETE FROM workflow_rechecks w
        WHERE w.job_id IN (SELECT x.job_id FROM workflow_rechecks x ORDER BY x.job_id LIMIT p_limit
                           FOR UPDATE SKIP LOCKED)
        RETURNING w.job_id
    LOOP
        IF forgeflow_resolve_child(v_child, true) IS NOT NULL THEN
            v_count := v_count + 1;
        END IF;
    END LOOP;
    -- throttle windows that ended (forgeflow_flow.sql), so idle keys keep nothing
    PERFORM forgeflow_throttle_sweep(p_limit * 10);
    -- and the sequences the engine could not advance (forgeflow_sequences.sql): the same sweep, the same pass
    RETURN v_count + forgeflow_sequence_recheck(p_limit);
END
$$;
--rollback DROP FUNCTION forgeflow_recheck_children(integer); DROP FUNCTION forgeflow_link_parents(uuid, uuid[]); DROP TRIGGER IF EXISTS jobs_decide_children_on_removal ON jobs; DROP FUNCTION forgeflow_parent_removed_trigger(); DROP FUNCTION forgeflow_reopen_children(uuid); DROP TRIGGER IF EXISTS runs_decide_children ON runs; DROP FUNCTION forgeflow_run_ended_trigger(); DROP FUNCTION forgeflow_resolve_children(uuid); DROP FUNCTION forgeflow_resolve_child(uuid, boolean, uuid);

--changeset forgeflow:function-forgeflow_complete_batches runOnChange:true splitStatements:false
-- The counts of a completed batch where its on_complete job's executor reads them (each executor refuses fields it
-- does not know): java: the handler's args; http: headers X-ForgeFlow-Batch-*, and the JSON body when it has one;
-- shell: variables FORGEFLOW_BATCH_* exported before the command (their values are a uuid and numbers); noop: none;
-- any other executor (a plug-in): top-level payload fields.
CREATE OR REPLACE FUNCTION forgeflow_batch_payload(p_executor text, p_payload jsonb, p_batch uuid, p_succeeded integer,
                                                   p_dead integer, p_cancelled integer) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_counts jsonb := jsonb_build_object('batch_id', p_batch::text, 'succeeded', p_succeeded, 'dead', p_dead,
                                         'cancelled', p_cancelled);
    v_method text;
BEGIN
    IF p_executor = 'java' THEN
        RETURN jsonb_set(p_payload, '{args}', coalesce(p_payload -> 'args', '{}'::jsonb) || v_counts);
    ELSIF p_executor = 'http' THEN
        v_method := upper(coalesce(p_payload ->> 'method', 'POST'));
        p_payload := jsonb_set(p_payload, '{headers}', coalesce(p_payload -> 'headers', '{}'::jsonb)
            || jsonb_build_object('X-ForgeFlow-Batch-Id', p_batch::text,
                                  'X-ForgeFlow-Batch-Succeeded', p_succeeded::text,
                                  'X-ForgeFlow-Batch-Dead', p_dead::text,
                                  'X-ForgeFlow-Batch-Cancelled', p_cancelled::text));
        IF v_method IN ('POST', 'PUT', 'PATCH')
           AND (p_payload -> 'body' IS NULL OR jsonb_typeof(p_payload -> 'body') IN ('object', 'null')) THEN
            p_payload := jsonb_set(p_payload, '{body}', CASE WHEN jsonb_typeof(p_payload -> 'body') = 'object'
                                                            THEN p_payload -> 'body' ELSE '{}'::jsonb END || v_counts);
        END IF;
        RETURN p_payload;
    ELSIF p_executor = 'noop' THEN
        RETURN p_payload; -- reads nothing but sleep_ms
    ELSIF p_executor = 'shell' THEN
        RETURN jsonb_set(p_payload, '{command}', to_jsonb(
            'FORGEFLOW_BATCH_ID=' || p_batch || ' FORGEFLOW_BATCH_SUCCEEDED=' || p_succeeded
            || ' FORGEFLOW_BATCH_DEAD=' || p_dead || ' FORGEFLOW_BATCH_CANCELLED=' || p_cancelled
            || '; export FORGEFLOW_BATCH_ID FORGEFLOW_BATCH_SUCCEEDED FORGEFLOW_BATCH_DEAD FORGEFLOW_BATCH_CANCELLED; '
            || (p_payload ->> 'command')));
    END IF;
    RETURN p_payload || v_counts;
END
$$;

-- The leader's check of open batches: a batch whose jobs have all ended (none active or paused) is completed once
-- (compare-and-set on completed_at, under the batch row's lock, so two racing leaders complete it once) with the
-- counts of its jobs by their latest run (succeeded, dead; anything else ended as cancelled), and its on_complete
-- job's waiting run becomes pending with the counts added to its payload. Returns the batches completed.
CREATE OR REPLACE FUNCTION forgeflow_complete_batches(p_limit integer) RETURNS SETOF uuid
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_batch     uuid;
    v_then      uuid;
    v_succeeded integer;
    v_dead      integer;
    v_cancelled integer;
    v_run       uuid;
    v_now       timestamptz := now();
BEGIN
    FOR v_batch, v_then IN
        SELECT b.id, b.on_complete_job_id
        FROM batches b
        WHERE b.completed_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch_id = b.id AND j.status IN ('active', 'paused'))
        ORDER BY b.created_at, b.id
        LIMIT p_limit
        FOR UPDATE OF b SKIP LOCKED
    LOOP
        -- under the lock: the check again, as of now
        CONTINUE WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.batch_id = v_batch AND j.status IN ('active', 'paused'))
                   OR NOT EXISTS (SELECT 1 FROM batches b WHERE b.id = v_batch AND b.completed_at IS NULL);
        SELECT count(*) FILTER (WHERE l.status = 'succeeded'), count(*) FILTER (WHERE l.status = 'dead'),
               count(*) FILTER (WHERE l.status IS DISTINCT FROM 'succeeded' AND l.status IS DISTINCT FROM 'dead')
        INTO v_succeeded, v_dead, v_cancelled
        FROM jobs j
        LEFT JOIN LATERAL (SELECT r.status FROM runs r WHERE r.job_id = j.id ORDER BY r.id DESC LIMIT 1) l ON true
        WHERE j.batch_id = v_batch;
        UPDATE batches
        SET completed_at = v_now, succeeded = v_succeeded, dead = v_dead, cancelled = v_cancelled
        WHERE id = v_batch;
        IF v_then IS NOT NULL THEN
            UPDATE runs r
            SET status = 'pending', scheduled_for = greatest(r.scheduled_for, v_now),
                payload = forgeflow_batch_payload(r.executor, r.payload, v_batch, v_succeeded, v_dead, v_cancelled)
            WHERE r.id = (SELECT x.id FROM runs x WHERE x.job_id = v_then AND x.status = 'waiting'
                          ORDER BY x.id LIMIT 1)
              AND r.status = 'waiting'
            RETURNING r.id INTO v_run;
            IF v_run IS NOT NULL THEN
                PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_then || ',pending,0,'
                                  || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
                PERFORM pg_notify('forgeflow_due', '');
            END IF;
        END IF;
        RETURN NEXT v_batch;
    END LOOP;
END
$$;
--rollback DROP FUNCTION forgeflow_complete_batches(integer); DROP FUNCTION forgeflow_batch_payload(text, jsonb, uuid, integer, integer, integer);
