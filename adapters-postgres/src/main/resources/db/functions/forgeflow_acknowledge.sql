--liquibase formatted sql

-- forgeflow_acknowledge: applies a batch of acknowledgements (running -> succeeded, pending for a retry, dead or
-- cancelled), every row fenced by (id, running, worker, attempt), runs locked in id order and then the jobs of
-- one-off runs that ended; finishes the attempt rows. Called by RunSql/acknowledge.sql. Edited in place
-- (runOnChange); its history before this file is in 0006.

--changeset forgeflow:function-forgeflow_acknowledge runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_acknowledge(p_ids uuid[], p_workers text[], p_attempts integer[], p_next text[],
                                      p_delays bigint[], p_outcomes text[], p_outputs text[], p_errors text[],
                                      p_now timestamptz)
    RETURNS TABLE (id uuid, worker_id text, attempt integer, job_id uuid, status text)
    LANGUAGE plpgsql VOLATILE
    SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
DECLARE
    v_now      timestamptz := coalesce(p_now, now());
    v_row      record;
    v_job      uuid;
    v_status   text;
    v_started  timestamptz;
    v_ended    uuid[] := '{}';
BEGIN
    IF coalesce(cardinality(p_ids), 0) >= 16 THEN
        RETURN QUERY EXECUTE $batch$
            WITH batch AS (
                SELECT *
                FROM unnest((SELECT CAST($1 AS uuid[])), (SELECT CAST($2 AS text[])), (SELECT CAST($3 AS integer[])),
                            (SELECT CAST($4 AS text[])), (SELECT CAST($5 AS bigint[])), (SELECT CAST($6 AS text[])),
                            (SELECT CAST($7 AS text[])), (SELECT CAST($8 AS text[])))
                     AS b (id, worker_id, attempt, next_status, delay_millis, outcome, output, error)
            ), held AS MATERIALIZED (
                SELECT b.*
                FROM (SELECT * FROM batch ORDER BY id) b
                CROSS JOIN LATERAL (
                    SELECT id
                    FROM runs
                    WHERE id = b.id
                      AND CASE WHEN status = 'running' THEN worker_id = b.worker_id AND attempt = b.attempt
                               ELSE false END
                    FOR UPDATE) r
            ), done AS (
                UPDATE runs r
                SET status           = b.next_status,
                    worker_id        = NULL,
                    lease_expires_at = NULL,
                    cancel_requested = false,
                    scheduled_for    = CASE WHEN b.next_status = 'pending'
                                            THEN coalesce(CAST($9 AS timestamptz), now())
                                                 + b.delay_millis * interval '1 millisecond'
                                            ELSE r.scheduled_for END,
                    finished_at      = CASE WHEN b.next_status = 'pending' THEN NULL
                                            ELSE coalesce(CAST($9 AS timestamptz), now()) END,
                    output           = b.output,
                    error            = b.error
                FROM held b
                WHERE r.id = b.id
                  AND CASE WHEN r.status = 'running' THEN r.worker_id = b.worker_id AND r.attempt = b.attempt
                           ELSE false END
                RETURNING r.id, r.job_id, r.status, r.started_at, b.worker_id, b.attempt, b.outcome, b.error
            ), finished AS (
                INSERT INTO run_attempts AS a (run_id, attempt, worker_id, started_at, finished_at, outcome, error)
                SELECT id, attempt, worker_id, coalesce(started_at, CAST($9 AS timestamptz), now()),
                       coalesce(CAST($9 AS timestamptz), now()), outcome, error
                FROM done
                ON CONFLICT (run_id, attempt) DO UPDATE
                    SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error
                    WHERE a.outcome IS NULL
            ), completed AS (
                UPDATE jobs j
                SET status = 'completed', next_run_at = NULL, updated_at = coalesce(CAST($9 AS timestamptz), now())
                WHERE j.id IN (SELECT job_id FROM done WHERE status IN ('succeeded', 'dead', 'cancelled'))
                  AND j.status IN ('active', 'paused')
                  AND j.cron_expr IS NULL
            )
            SELECT id, worker_id, attempt, job_id, status
            FROM done
        $batch$ USING p_ids, p_workers, p_attempts, p_next, p_delays, p_outcomes, p_outputs, p_errors, p_now;
        RETURN;
    END IF;

    FOR v_row IN
        SELECT b.*
        FROM unnest(p_ids, p_workers, p_attempts, p_next, p_delays, p_outcomes, p_outputs, p_errors)
             AS b (id, worker_id, attempt, next_status, delay_millis, outcome, output, error)
        ORDER BY b.id
    LOOP
        UPDATE runs r
        SET status           = v_row.next_status,
            worker_id        = NULL,
            lease_expires_at = NULL,
            cancel_requested = false,
            scheduled_for    = CASE WHEN v_row.next_status = 'pending'
                                    THEN v_now + v_row.delay_millis * interval '1 millisecond'
                                    ELSE r.scheduled_for END,
            finished_at      = CASE WHEN v_row.next_status = 'pending' THEN NULL ELSE v_now END,
            output           = v_row.output,
            error            = v_row.error
        WHERE r.id = v_row.id
          AND CASE WHEN r.status = 'running' THEN r.worker_id = v_row.worker_id AND r.attempt = v_row.attempt
                   ELSE false END
        RETURNING r.job_id, r.status, r.started_at INTO v_job, v_status, v_started;
        CONTINUE WHEN NOT FOUND;

        INSERT INTO run_attempts AS a (run_id, attempt, worker_id, started_at, finished_at, outcome, error)
        VALUES (v_row.id, v_row.attempt, v_row.worker_id, coalesce(v_started, v_now), v_now, v_row.outcome,
                v_row.error)
        ON CONFLICT (run_id, attempt) DO UPDATE
            SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error
            WHERE a.outcome IS NULL;
        IF v_status IN ('succeeded', 'dead', 'cancelled') THEN
            v_ended := v_ended || v_job;
        END IF;

        id := v_row.id;
        worker_id := v_row.worker_id;
        attempt := v_row.attempt;
        job_id := v_job;
        status := v_status;
        RETURN NEXT;
    END LOOP;

    FOR v_job IN SELECT DISTINCT e.id FROM unnest(v_ended) AS e (id) ORDER BY e.id LOOP
        UPDATE jobs j
        SET status = 'completed', next_run_at = NULL, updated_at = v_now
        WHERE j.id = v_job AND j.status IN ('active', 'paused') AND j.cron_expr IS NULL;
    END LOOP;
END
$$;
