--liquibase formatted sql

-- forgeflow_end_attempts: ends attempts of running runs, a batch per call; every way out of running goes through it.
-- Called by RunSql/endAttempts.sql for a worker's acknowledgements (succeeded, failed, timed_out, cancelled) and
-- releases (released), and for the leader's decisions on expired leases (lease_expired).
-- Each row is fenced by (id, running, holder, attempt): the holder is the worker process's own identity
-- (runs.worker_instance, 0016; a run written running by anything but the claim has none: its label is its holder),
-- never its label alone; a lease_expired row also by its lease having expired and its
-- holder's lease row being ended (here, once it expired), so a stale or raced decision changes nothing. A batch of
-- recoveries skips runs locked by others (SKIP LOCKED); a worker's acknowledgement waits for the row (lock_timeout) and
-- is retried by its acknowledger: the holder's live lease row keeps the run meanwhile. Runs are locked in id order (as heartbeats and job changes lock them),
-- then the jobs of runs that ended (one-off jobs complete; recurring ones with pause_after_failures count dead runs
-- in a row in dead_streak and pause at the control), so concurrent multi-row writers cannot deadlock. Per row: the run moves to
-- p_next (pending: due after p_delays ms; released: due now, the attempt not charged, max_attempts + 1; snoozed: due
-- after its snooze, not charged either, and snoozes + 1); its output and error become the attempt's, except that
-- lease_expired and released keep the run's output (and released and snoozed its error);
-- the attempt's row is written here, once: the claim writes none (a row an older version's claim wrote is
-- finished, only while it has no outcome). Returns the rows that applied.

--changeset forgeflow:function-forgeflow_failure_pause_note runOnChange:true splitStatements:false
-- the note of a pause by pause_after_failures (ScheduleState.failurePauseNote says the same)
CREATE OR REPLACE FUNCTION forgeflow_failure_pause_note(p_after integer) RETURNS text
    LANGUAGE sql IMMUTABLE
AS $note$
SELECT 'paused by the scheduler after ' || p_after || CASE WHEN p_after = 1 THEN ' dead run' ELSE ' dead runs in a row' END
       || ' (pause_after_failures: ' || p_after || '); resume the job once the cause is fixed'
$note$;

--changeset forgeflow:function-forgeflow_end_attempts runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_end_attempts(p_ids uuid[], p_workers text[], p_attempts integer[], p_next text[],
                                                  p_delays bigint[], p_outcomes text[], p_outputs text[],
                                                  p_errors text[], p_now timestamptz)
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
    v_ended_status text[] := '{}';
    v_recovery boolean;
BEGIN
    -- a batch of 16 or more: one statement (each lookup by primary key, so its cost grows with the batch, not the
    -- table); fewer: one update per row, cheaper than planning the statement
    -- the leader's recoveries skip a run someone holds locked (an application, an operator): the next pass retries it
    v_recovery := coalesce(cardinality(p_ids), 0) > 0 AND 'lease_expired' = ALL (p_outcomes);
    IF coalesce(cardinality(p_ids), 0) >= 16 AND NOT v_recovery THEN
        RETURN QUERY EXECUTE $batch$
            WITH batch AS (
                SELECT *
                FROM unnest((SELECT CAST($1 AS uuid[])), (SELECT CAST($2 AS text[])), (SELECT CAST($3 AS integer[])),
                            (SELECT CAST($4 AS text[])), (SELECT CAST($5 AS bigint[])), (SELECT CAST($6 AS text[])),
                            (SELECT CAST($7 AS text[])), (SELECT CAST($8 AS text[])))
                     AS b (id, worker_id, attempt, next_status, delay_millis, outcome, output, error)
            ), held AS MATERIALIZED (
                -- the fence is tested inside a CASE on purpose: as plain conditions, status = 'running' let the
                -- planner serve each lookup from a partial index WHERE status = 'running' and scan every running run
                -- of a queue per batch row
                SELECT b.*
                FROM (SELECT * FROM batch ORDER BY id) b
                CROSS JOIN LATERAL (
                    SELECT id
                    FROM runs
                    WHERE id = b.id
                      AND CASE WHEN status = 'running'
                               THEN coalesce(worker_instance, worker_id) = b.worker_id AND attempt = b.attempt
                                    AND (b.outcome <> 'lease_expired'
                                         OR (lease_expires_at < coalesce(CAST($9 AS timestamptz), now())
                                             AND NOT EXISTS (SELECT 1 FROM worker_leases w
                                                             WHERE w.instance = coalesce(worker_instance, worker_id)
                                                               AND w.ended_at IS NULL)))
                               ELSE false END
                    FOR UPDATE) r
            ), done AS (
                UPDATE runs r
                SET status           = b.next_status,
                    worker_id        = NULL,
                    worker_instance  = NULL,
                    lease_expires_at = NULL,
                    cancel_requested = false,
                    scheduled_for    = CASE WHEN b.next_status = 'pending'
                                            THEN coalesce(CAST($9 AS timestamptz), now())
                                                 + b.delay_millis * interval '1 millisecond'
                                            ELSE r.scheduled_for END,
                    finished_at      = CASE WHEN b.next_status = 'pending' THEN NULL
                                            ELSE coalesce(CAST($9 AS timestamptz), now()) END,
                    max_attempts     = CASE WHEN b.outcome IN ('released', 'snoozed') THEN r.max_attempts + 1
                                            ELSE r.max_attempts END,
                    snoozes          = CASE WHEN b.outcome = 'snoozed' THEN r.snoozes + 1 ELSE r.snoozes END,
                    output           = CASE WHEN b.outcome IN ('lease_expired', 'released') THEN r.output
                                            ELSE b.output END,
                    error            = CASE WHEN b.outcome IN ('released', 'snoozed') THEN r.error ELSE b.error END
                FROM held b
                WHERE r.id = b.id
                  AND CASE WHEN r.status = 'running' THEN coalesce(r.worker_instance, r.worker_id) = b.worker_id AND r.attempt = b.attempt
                           ELSE false END
                RETURNING r.id, r.job_id, r.status, r.started_at, b.worker_id, b.attempt, b.outcome, b.error
            ), finished AS (
                INSERT INTO run_attempts AS a (run_id, attempt, worker_id, started_at, finished_at, outcome, error)
                SELECT id, attempt, forgeflow_worker_label(worker_id), coalesce(started_at, CAST($9 AS timestamptz), now()),
                       coalesce(CAST($9 AS timestamptz), now()), outcome, error
                FROM done
                ON CONFLICT (run_id, attempt) DO UPDATE
                    SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error
                    WHERE a.outcome IS NULL
            ), ended AS (
                -- per job: a success in the batch ends a streak of dead runs, else its dead runs extend it
                SELECT job_id, count(*) FILTER (WHERE status = 'dead') AS dead, bool_or(status = 'succeeded') AS ok
                FROM done
                WHERE status IN ('succeeded', 'dead', 'cancelled')
                GROUP BY job_id
            ), completed AS (
                UPDATE jobs j
                SET status      = CASE WHEN j.cron_expr IS NULL THEN 'completed'
                                       WHEN NOT e.ok AND j.status = 'active'
                                            AND j.dead_streak + e.dead >= j.pause_after_failures THEN 'paused'
                                       ELSE j.status END,
                    next_run_at = CASE WHEN j.cron_expr IS NULL THEN NULL
                                       WHEN NOT e.ok AND j.status = 'active'
                                            AND j.dead_streak + e.dead >= j.pause_after_failures THEN NULL
                                       ELSE j.next_run_at END,
                    paused_note = CASE WHEN j.cron_expr IS NOT NULL AND NOT e.ok AND j.status = 'active'
                                            AND j.dead_streak + e.dead >= j.pause_after_failures
                                       THEN forgeflow_failure_pause_note(j.pause_after_failures)
                                       ELSE j.paused_note END,
                    paused_by   = CASE WHEN j.cron_expr IS NOT NULL AND NOT e.ok AND j.status = 'active'
                                            AND j.dead_streak + e.dead >= j.pause_after_failures THEN 'scheduler'
                                       ELSE j.paused_by END,
                    dead_streak = CASE WHEN j.cron_expr IS NULL THEN j.dead_streak WHEN e.ok THEN 0
                                       ELSE j.dead_streak + e.dead END,
                    updated_at  = CASE WHEN j.cron_expr IS NULL
                                            OR NOT e.ok AND j.status = 'active'
                                               AND j.dead_streak + e.dead >= j.pause_after_failures
                                       THEN coalesce(CAST($9 AS timestamptz), now())
                                       ELSE j.updated_at END
                FROM ended e
                WHERE j.id = e.job_id
                  AND CASE WHEN j.cron_expr IS NULL THEN j.status IN ('active', 'paused')
                           ELSE j.pause_after_failures IS NOT NULL AND (e.dead > 0 OR e.ok AND j.dead_streak > 0) END
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
        IF v_recovery THEN
            PERFORM 1 FROM runs x WHERE x.id = v_row.id FOR UPDATE SKIP LOCKED;
            CONTINUE WHEN NOT FOUND;
            -- the holder's lease expired: it is ended for good, unless its heartbeat extended it first (the row lock
            -- orders the two; a heartbeat after this waits for the commit and then finds it ended)
            UPDATE worker_leases w SET ended_at = v_now
            WHERE w.instance = v_row.worker_id AND w.ended_at IS NULL AND w.expires_at < v_now;
        END IF;
        UPDATE runs r
        SET status           = v_row.next_status,
            worker_id        = NULL,
            worker_instance  = NULL,
            lease_expires_at = NULL,
            cancel_requested = false,
            scheduled_for    = CASE WHEN v_row.next_status = 'pending'
                                    THEN v_now + v_row.delay_millis * interval '1 millisecond'
                                    ELSE r.scheduled_for END,
            finished_at      = CASE WHEN v_row.next_status = 'pending' THEN NULL ELSE v_now END,
            max_attempts     = CASE WHEN v_row.outcome IN ('released', 'snoozed') THEN r.max_attempts + 1
                                    ELSE r.max_attempts END,
            snoozes          = CASE WHEN v_row.outcome = 'snoozed' THEN r.snoozes + 1 ELSE r.snoozes END,
            output           = CASE WHEN v_row.outcome IN ('lease_expired', 'released') THEN r.output
                                    ELSE v_row.output END,
            error            = CASE WHEN v_row.outcome IN ('released', 'snoozed') THEN r.error ELSE v_row.error END
        WHERE r.id = v_row.id
          AND CASE WHEN r.status = 'running'
                   THEN coalesce(r.worker_instance, r.worker_id) = v_row.worker_id AND r.attempt = v_row.attempt
                        AND (v_row.outcome <> 'lease_expired'
                             OR (r.lease_expires_at < v_now
                                 AND NOT EXISTS (SELECT 1 FROM worker_leases w
                                                 WHERE w.instance = coalesce(r.worker_instance, r.worker_id)
                                                   AND w.ended_at IS NULL)))
                   ELSE false END
        RETURNING r.job_id, r.status, r.started_at INTO v_job, v_status, v_started;
        CONTINUE WHEN NOT FOUND;

        INSERT INTO run_attempts AS a (run_id, attempt, worker_id, started_at, finished_at, outcome, error)
        VALUES (v_row.id, v_row.attempt, forgeflow_worker_label(v_row.worker_id), coalesce(v_started, v_now), v_now,
                v_row.outcome,
                v_row.error)
        ON CONFLICT (run_id, attempt) DO UPDATE
            SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error
            WHERE a.outcome IS NULL;
        IF v_status IN ('succeeded', 'dead', 'cancelled') THEN
            v_ended := v_ended || v_job;
            v_ended_status := v_ended_status || v_status;
        END IF;

        id := v_row.id;
        worker_id := v_row.worker_id;
        attempt := v_row.attempt;
        job_id := v_job;
        status := v_status;
        RETURN NEXT;
    END LOOP;

    -- one-off jobs complete; a recurring job with pause_after_failures counts its dead runs in a row (a success
    -- ends the streak) and pauses, the scheduler its author, when the streak reaches the control; no other job's
    -- row is written
    FOR v_job, v_status IN SELECT e.id, e.status FROM unnest(v_ended, v_ended_status) AS e (id, status)
                           ORDER BY e.id LOOP
        UPDATE jobs j
        SET status      = CASE WHEN j.cron_expr IS NULL THEN 'completed'
                               WHEN v_status = 'dead' AND j.status = 'active'
                                    AND j.dead_streak + 1 >= j.pause_after_failures THEN 'paused'
                               ELSE j.status END,
            next_run_at = CASE WHEN j.cron_expr IS NULL THEN NULL
                               WHEN v_status = 'dead' AND j.status = 'active'
                                    AND j.dead_streak + 1 >= j.pause_after_failures THEN NULL
                               ELSE j.next_run_at END,
            paused_note = CASE WHEN j.cron_expr IS NOT NULL AND v_status = 'dead' AND j.status = 'active'
                                    AND j.dead_streak + 1 >= j.pause_after_failures
                               THEN forgeflow_failure_pause_note(j.pause_after_failures)
                               ELSE j.paused_note END,
            paused_by   = CASE WHEN j.cron_expr IS NOT NULL AND v_status = 'dead' AND j.status = 'active'
                                    AND j.dead_streak + 1 >= j.pause_after_failures THEN 'scheduler'
                               ELSE j.paused_by END,
            dead_streak = CASE WHEN j.cron_expr IS NULL THEN j.dead_streak WHEN v_status = 'dead' THEN j.dead_streak + 1
                               ELSE 0 END,
            updated_at  = CASE WHEN j.cron_expr IS NULL
                                    OR v_status = 'dead' AND j.status = 'active'
                                       AND j.dead_streak + 1 >= j.pause_after_failures THEN v_now
                               ELSE j.updated_at END
        WHERE j.id = v_job
          AND CASE WHEN j.cron_expr IS NULL THEN j.status IN ('active', 'paused')
                   ELSE j.pause_after_failures IS NOT NULL
                        AND (v_status = 'dead' OR v_status = 'succeeded' AND j.dead_streak > 0) END;
    END LOOP;
END
$$;
