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
-- in a row in dead_streak and pause at the control; jobs with notify write their notices, below), so concurrent
-- multi-row writers cannot deadlock. Per row: the run moves to
-- p_next (pending: due after p_delays ms; released: due now, the attempt not charged, max_attempts + 1; snoozed: due
-- after its snooze, not charged either, and snoozes + 1); its output and error become the attempt's, except that
-- lease_expired and released keep the run's output (and released and snoozed its error);
-- the attempt's row is written here, once: the claim writes none (a row an older version's claim wrote is
-- finished, only while it has no outcome). Returns the rows that applied.
-- Notices (issue 45, 0023): a job whose notify asks for the event gets a row in the notices outbox, in this
-- transaction: dead (a run of it ended dead), paused (pause_after_failures paused it), recovered (a run succeeded
-- while awaiting_recovery, set by its dead runs). A job row is read FOR UPDATE (its values before this change decide
-- the events) and written only when one of these applies to it; other jobs' rows are neither locked nor written.

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
    v_ended_run uuid[] := '{}';
    v_ended_attempt integer[] := '{}';
    v_ended_error text[] := '{}';
    v_run      uuid;
    v_attempt  integer;
    v_error    text;
    v_was_awaiting boolean;
    v_paused   boolean;
    v_notify   jsonb;
    v_name     text;
    v_note     text;
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
            ), plain AS (
                -- the common case, as cheap as before notices: a one-off job without notify completes, one
                -- statement, no lock beyond the update's own
                UPDATE jobs j
                SET status = 'completed', next_run_at = NULL, updated_at = coalesce(CAST($9 AS timestamptz), now())
                FROM ended e
                WHERE j.id = e.job_id AND j.cron_expr IS NULL AND j.notify IS NULL AND j.status IN ('active', 'paused')
                RETURNING j.id
            ), prior AS (
                -- the other jobs this batch changes, locked in id order, with what decides their change and notices
                SELECT o.id, o.status, o.awaiting_recovery, e.dead, e.ok,
                       o.cron_expr IS NULL AND o.status IN ('active', 'paused') AS completes,
                       coalesce(o.cron_expr IS NOT NULL AND NOT e.ok AND o.status = 'active'
                                AND o.dead_streak + e.dead >= o.pause_after_failures, false) AS pauses,
                       o.cron_expr IS NOT NULL AND o.pause_after_failures IS NOT NULL AS counts,
                       coalesce(o.notify -> 'on' @> '["recovered"]', false) AS tracks
                FROM jobs o
                JOIN ended e ON e.job_id = o.id
                WHERE e.job_id NOT IN (SELECT id FROM plain)
                  AND (o.cron_expr IS NULL AND o.status IN ('active', 'paused')
                   OR o.cron_expr IS NOT NULL AND o.pause_after_failures IS NOT NULL
                      AND (e.dead > 0 OR e.ok AND o.dead_streak > 0)
                   OR coalesce(o.notify -> 'on' @> '["recovered"]', false) AND (e.dead > 0 OR e.ok AND o.awaiting_recovery)
                   OR e.dead > 0 AND coalesce(o.notify -> 'on' @> '["dead"]', false))
                ORDER BY o.id
                FOR UPDATE OF o
            ), completed AS (
                UPDATE jobs j
                SET status            = CASE WHEN o.completes THEN 'completed' WHEN o.pauses THEN 'paused'
                                             ELSE j.status END,
                    next_run_at       = CASE WHEN o.completes OR o.pauses THEN NULL ELSE j.next_run_at END,
                    paused_note       = CASE WHEN o.pauses THEN forgeflow_failure_pause_note(j.pause_after_failures)
                                             ELSE j.paused_note END,
                    paused_by         = CASE WHEN o.pauses THEN 'scheduler' ELSE j.paused_by END,
                    dead_streak       = CASE WHEN NOT o.counts THEN j.dead_streak WHEN o.ok THEN 0
                                             ELSE j.dead_streak + o.dead END,
                    awaiting_recovery = CASE WHEN NOT o.tracks THEN j.awaiting_recovery WHEN o.ok THEN false
                                             WHEN o.dead > 0 THEN true ELSE j.awaiting_recovery END,
                    updated_at        = CASE WHEN o.completes OR o.pauses
                                             THEN coalesce(CAST($9 AS timestamptz), now()) ELSE j.updated_at END
                FROM prior o
                WHERE j.id = o.id
                RETURNING j.id, j.name, j.notify, j.paused_note, o.pauses, o.ok,
                          o.awaiting_recovery AS was_awaiting
            ), noticed AS (
                INSERT INTO notices (job_id, job_name, event, url, run_id, attempt, error, note, created_at)
                SELECT n.job_id, n.job_name, n.event, n.url, n.run_id, n.attempt, n.error, n.note,
                       coalesce(CAST($9 AS timestamptz), now())
                FROM (
                    SELECT c.id AS job_id, c.name AS job_name, 'dead' AS event, c.notify ->> 'url' AS url,
                           d.id AS run_id, d.attempt, left(d.error, 2000) AS error, CAST(NULL AS text) AS note,
                           1 AS step, d.id AS run_order
                    FROM completed c
                    JOIN done d ON d.job_id = c.id AND d.status = 'dead'
                    WHERE c.notify -> 'on' @> '["dead"]'
                    UNION ALL
                    SELECT c.id, c.name, 'paused', c.notify ->> 'url', l.id, l.attempt, left(l.error, 2000),
                           c.paused_note, 2, NULL
                    FROM completed c
                    CROSS JOIN LATERAL (SELECT d.id, d.attempt, d.error FROM done d
                                        WHERE d.job_id = c.id AND d.status = 'dead'
                                        ORDER BY d.id DESC LIMIT 1) l
                    WHERE c.pauses AND c.notify -> 'on' @> '["paused"]'
                    UNION ALL
                    SELECT c.id, c.name, 'recovered', c.notify ->> 'url', f.id, f.attempt, NULL, NULL, 3, NULL
                    FROM completed c
                    CROSS JOIN LATERAL (SELECT d.id, d.attempt FROM done d
                                        WHERE d.job_id = c.id AND d.status = 'succeeded'
                                        ORDER BY d.id LIMIT 1) f
                    WHERE c.ok AND c.was_awaiting AND c.notify -> 'on' @> '["recovered"]'
                ) n
                ORDER BY n.job_id, n.step, n.run_order
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
            v_ended_run := v_ended_run || v_row.id;
            v_ended_attempt := v_ended_attempt || v_row.attempt;
            v_ended_error := v_ended_error || v_row.error;
        END IF;

        id := v_row.id;
        worker_id := v_row.worker_id;
        attempt := v_row.attempt;
        job_id := v_job;
        status := v_status;
        RETURN NEXT;
    END LOOP;

    -- one-off jobs complete; a recurring job with pause_after_failures counts its dead runs in a row (a success
    -- ends the streak) and pauses, the scheduler its author, when the streak reaches the control; a job with notify
    -- writes the notices it asks for; no other job's row is locked or written
    FOR v_job, v_status, v_run, v_attempt, v_error IN
        SELECT e.job, e.status, e.run, e.attempt, e.error
        FROM unnest(v_ended, v_ended_status, v_ended_run, v_ended_attempt, v_ended_error)
             AS e (job, status, run, attempt, error)
        ORDER BY e.job, e.run LOOP
        -- the common case, as cheap as before notices: a one-off job without notify completes in one update
        UPDATE jobs j
        SET status = 'completed', next_run_at = NULL, updated_at = v_now
        WHERE j.id = v_job AND j.cron_expr IS NULL AND j.notify IS NULL AND j.status IN ('active', 'paused');
        CONTINUE WHEN FOUND;
        WITH prior AS (
            SELECT o.id, o.awaiting_recovery,
                   o.cron_expr IS NULL AND o.status IN ('active', 'paused') AS completes,
                   coalesce(o.cron_expr IS NOT NULL AND v_status = 'dead' AND o.status = 'active'
                            AND o.dead_streak + 1 >= o.pause_after_failures, false) AS pauses,
                   o.cron_expr IS NOT NULL AND o.pause_after_failures IS NOT NULL AS counts,
                   coalesce(o.notify -> 'on' @> '["recovered"]', false) AS tracks
            FROM jobs o
            WHERE o.id = v_job
              AND (o.cron_expr IS NULL AND o.status IN ('active', 'paused')
                   OR o.cron_expr IS NOT NULL AND o.pause_after_failures IS NOT NULL
                      AND (v_status = 'dead' OR v_status = 'succeeded' AND o.dead_streak > 0)
                   OR coalesce(o.notify -> 'on' @> '["recovered"]', false)
                      AND (v_status = 'dead' OR v_status = 'succeeded' AND o.awaiting_recovery)
                   OR v_status = 'dead' AND coalesce(o.notify -> 'on' @> '["dead"]', false))
            FOR UPDATE
        )
        UPDATE jobs j
        SET status            = CASE WHEN o.completes THEN 'completed' WHEN o.pauses THEN 'paused' ELSE j.status END,
            next_run_at       = CASE WHEN o.completes OR o.pauses THEN NULL ELSE j.next_run_at END,
            paused_note       = CASE WHEN o.pauses THEN forgeflow_failure_pause_note(j.pause_after_failures)
                                     ELSE j.paused_note END,
            paused_by         = CASE WHEN o.pauses THEN 'scheduler' ELSE j.paused_by END,
            dead_streak       = CASE WHEN NOT o.counts THEN j.dead_streak WHEN v_status = 'dead' THEN j.dead_streak + 1
                                     WHEN v_status = 'succeeded' THEN 0 ELSE j.dead_streak END,
            awaiting_recovery = CASE WHEN NOT o.tracks THEN j.awaiting_recovery WHEN v_status = 'dead' THEN true
                                     WHEN v_status = 'succeeded' THEN false ELSE j.awaiting_recovery END,
            updated_at        = CASE WHEN o.completes OR o.pauses THEN v_now ELSE j.updated_at END
        FROM prior o
        WHERE j.id = o.id
        RETURNING o.awaiting_recovery, o.pauses, j.notify, j.name, j.paused_note
        INTO v_was_awaiting, v_paused, v_notify, v_name, v_note;
        IF FOUND AND v_notify IS NOT NULL THEN
            INSERT INTO notices (job_id, job_name, event, url, run_id, attempt, error, note, created_at)
            SELECT v_job, v_name, ev.event, v_notify ->> 'url', v_run, v_attempt,
                   CASE WHEN v_status = 'dead' THEN left(v_error, 2000) END,
                   CASE WHEN ev.event = 'paused' THEN v_note END, v_now
            FROM (VALUES (1, 'dead', v_status = 'dead'), (2, 'paused', v_paused),
                         (3, 'recovered', v_status = 'succeeded' AND v_was_awaiting)) AS ev (step, event, happened)
            WHERE ev.happened AND v_notify -> 'on' @> jsonb_build_array(ev.event)
            ORDER BY ev.step;
        END IF;
    END LOOP;
END
$$;
