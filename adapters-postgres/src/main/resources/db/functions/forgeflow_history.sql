--liquibase formatted sql

-- Finished history (migration 0033): the leader moves finished runs, with their attempts, into run_history and
-- attempt_history, partitioned by the run's finished_at in UTC days (a day per partition, more for retentions over 28
-- days: forgeflow_history_span), and drops whole partitions at retention.
-- Rows are copied through jsonb by column name, so a column added to runs and to run_history (RunHistoryIT checks
-- both have the same) needs no change here. Re-run when changed.

--changeset forgeflow:function-forgeflow_history runOnChange:true splitStatements:false
-- The partitions of run_history, each named by its first UTC day (YYYYMMDD), with its bounds. A partition spans one
-- day or more (forgeflow_history_span); attempt_history has the same partitions under the same names.
CREATE OR REPLACE FUNCTION forgeflow_history_bounds()
    RETURNS TABLE (suffix text, lower_at timestamptz, upper_at timestamptz)
    LANGUAGE sql STABLE AS $$
    SELECT substr(c.relname, 14), CAST(m[1] AS timestamptz), CAST(m[2] AS timestamptz)
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), $re$FROM \('([^']+)'\) TO \('([^']+)'\)$re$) m
    WHERE i.inhparent = to_regclass('run_history')
      AND c.relname ~ '^run_history_p[0-9]{8}$'
$$;

-- Days per partition for a retention: one day up to 28 days kept, more beyond, so that the history never has more
-- than about 30 partitions. Every statement over the history plans and locks each partition with its indexes (a lookup
-- by id cannot be pruned): with a partition a day, 400 days took 55 ms and 4,000 locks per lookup.
CREATE OR REPLACE FUNCTION forgeflow_history_span(p_keep interval) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(1, ceil(extract(epoch FROM p_keep) / 86400 / 28))::integer
$$;

-- Partitions covering the UTC days p_from to p_to of both history tables, created where missing. A new partition
-- starts at a multiple of p_span days (counted from 2000-01-03, so that every node makes the same ones) and is cut
-- short where an existing partition begins or ends (one made under another retention). Returns how many were added.
-- Creating a partition takes a short lock on its parent (readers of all_runs wait for it): the caller sets
-- lock_timeout.
-- (the two-argument version of the release before, a partition a day, is replaced: no function has two signatures)
DROP FUNCTION IF EXISTS forgeflow_history_partitions(date, date);
CREATE OR REPLACE FUNCTION forgeflow_history_partitions(p_from date, p_to date, p_span integer DEFAULT 1)
    RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    d date := p_from;
    lo date;
    hi date;
    added integer := 0;
    suffix text;
BEGIN
    IF p_span IS NULL OR p_span < 1 THEN
        RAISE EXCEPTION 'a history partition spans at least one day, not %', p_span USING ERRCODE = '22023';
    END IF;
    WHILE d <= p_to LOOP
        SELECT (b.upper_at AT TIME ZONE 'UTC')::date INTO hi
        FROM forgeflow_history_bounds() b
        WHERE b.lower_at <= d::timestamp AT TIME ZONE 'UTC' AND b.upper_at > d::timestamp AT TIME ZONE 'UTC';
        IF FOUND THEN
            d := hi;
            CONTINUE;
        END IF;
        lo := d - ((d - DATE '2000-01-03') % p_span);
        hi := lo + p_span;
        SELECT greatest(lo, max((b.upper_at AT TIME ZONE 'UTC')::date)) INTO lo
        FROM forgeflow_history_bounds() b
        WHERE b.upper_at <= d::timestamp AT TIME ZONE 'UTC';
        SELECT least(hi, min((b.lower_at AT TIME ZONE 'UTC')::date)) INTO hi
        FROM forgeflow_history_bounds() b
        WHERE b.lower_at > d::timestamp AT TIME ZONE 'UTC';
        suffix := to_char(lo, 'YYYYMMDD');
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF run_history FOR VALUES FROM (%L) TO (%L)',
                       'run_history_p' || suffix, lo::timestamp AT TIME ZONE 'UTC', hi::timestamp AT TIME ZONE 'UTC');
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF attempt_history FOR VALUES FROM (%L) TO (%L)',
                       'attempt_history_p' || suffix, lo::timestamp AT TIME ZONE 'UTC',
                       hi::timestamp AT TIME ZONE 'UTC');
        added := added + 1;
        d := hi;
    END LOOP;
    RETURN added;
END
$$;

-- One batch of the move: at most p_limit runs that finished from p_since (the retention's horizon: older ones are
-- deleted where they are, with no partition made for them) to p_before, oldest first, with their attempts, in one
-- statement (nothing is lost or kept twice). Rows another transaction holds are skipped (SKIP LOCKED), so this never
-- waits for a requeue; the job's row is key-shared, so a purge of the job (which locks it first) waits for the move and
-- then finds the moved runs in history. Left in runs, because live logic still reads them there: a dead run that
-- blocks its sequence, a run whose debounce window is open, the runs of workflow jobs (parents and children: readiness
-- and requeue read their latest runs) and of jobs in a batch that has not completed. The partitions the batch needs,
-- and those of the next two days, are created first.
CREATE OR REPLACE FUNCTION forgeflow_move_history(p_since timestamptz, p_before timestamptz, p_limit integer,
                                                  p_now timestamptz)
    RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    v_oldest timestamptz;
    moved integer;
    v_lows timestamptz[];
    v_highs timestamptz[];
BEGIN
    SELECT min(r.finished_at) INTO v_oldest FROM runs r
    WHERE r.status IN ('succeeded', 'dead', 'cancelled') AND r.finished_at >= p_since AND r.finished_at < p_before;
    IF v_oldest IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM forgeflow_history_partitions((v_oldest AT TIME ZONE 'UTC')::date,
                                         (greatest(p_now, p_before) AT TIME ZONE 'UTC')::date + 2,
                                         forgeflow_history_span(greatest(p_now - p_since, interval '1 day')));
    -- history_days is kept per partition, under its first day
    SELECT array_agg(b.lower_at ORDER BY b.lower_at), array_agg(b.upper_at ORDER BY b.lower_at)
    INTO v_lows, v_highs
    FROM forgeflow_history_bounds() b;
    WITH picked AS (
        SELECT r.id
        FROM runs r
        JOIN jobs j ON j.id = r.job_id
        WHERE r.status IN ('succeeded', 'dead', 'cancelled')
          AND r.finished_at >= p_since
          AND r.finished_at < p_before
          AND NOT (r.status = 'dead' AND r.sequence_key IS NOT NULL AND r.sequence_on_dead = 'block')
          AND (r.debounce_until IS NULL OR r.debounce_until <= p_now)
          AND NOT r.has_children
          AND NOT EXISTS (SELECT 1 FROM job_dependencies d WHERE d.job_id = r.job_id)
          AND NOT EXISTS (SELECT 1 FROM job_dependencies d WHERE d.parent_id = r.job_id)
          AND NOT EXISTS (SELECT 1 FROM batches b WHERE b.id = j.batch_id AND b.completed_at IS NULL)
        ORDER BY r.finished_at
        LIMIT p_limit
        FOR UPDATE OF r SKIP LOCKED
        FOR KEY SHARE OF j SKIP LOCKED
    ), gone AS (
        DELETE FROM runs r USING picked p WHERE r.id = p.id
        RETURNING r.*
    ), gone_attempts AS (
        DELETE FROM run_attempts a USING gone g WHERE a.run_id = g.id
        RETURNING a.*, g.finished_at AS run_finished_at
    ), days AS (
        INSERT INTO history_days (day, newest_id)
        SELECT (p.lower_at AT TIME ZONE 'UTC')::date, (array_agg(g.id ORDER BY g.id DESC))[1]
        FROM gone g
        JOIN unnest(v_lows, v_highs) AS p (lower_at, upper_at)
          ON g.finished_at >= p.lower_at AND g.finished_at < p.upper_at
        GROUP BY 1
        ON CONFLICT (day) DO UPDATE SET newest_id = greatest(history_days.newest_id, excluded.newest_id)
    ), kept_attempts AS (
        INSERT INTO attempt_history
        SELECT h.* FROM gone_attempts a, LATERAL jsonb_populate_record(NULL::attempt_history, to_jsonb(a)) h
        ORDER BY a.run_finished_at, a.run_id, a.attempt
    )
    INSERT INTO run_history
    SELECT h.*
    FROM gone g,
         LATERAL jsonb_populate_record(NULL::run_history, to_jsonb(g) || jsonb_build_object('worker_id',
             coalesce(g.worker_id, (SELECT a.worker_id FROM run_attempts a
                                    WHERE a.run_id = g.id AND a.attempt = g.attempt)))) h
    -- stored in the order they finished: a day's rows lie together, in the order lists read them
    ORDER BY g.finished_at, g.id;
    GET DIAGNOSTICS moved = ROW_COUNT;
    RETURN moved;
END
$$;

-- Moves one run back from history into runs, with its attempts, for a requeue in the same transaction; only a dead or
-- cancelled run (as requeue takes). Returns whether it moved one.
CREATE OR REPLACE FUNCTION forgeflow_restore_run(p_id uuid) RETURNS boolean
    LANGUAGE plpgsql AS $$
DECLARE
    restored integer;
BEGIN
    -- a run still in runs stays there, locked until the requeue's update; one the leader is moving right now is
    -- waited for, and then found in history by the next statement
    PERFORM 1 FROM runs WHERE id = p_id FOR UPDATE;
    IF FOUND THEN
        RETURN false;
    END IF;
    WITH back AS (
        DELETE FROM run_history h WHERE h.id = p_id AND h.status IN ('dead', 'cancelled')
        RETURNING h.*
    ), back_attempts AS (
        DELETE FROM attempt_history a USING back b WHERE a.run_id = b.id AND a.run_finished_at = b.finished_at
        RETURNING a.*
    ), run_back AS (
        INSERT INTO runs
        SELECT r.* FROM back b, LATERAL jsonb_populate_record(NULL::runs, to_jsonb(b) || '{"worker_id": null}') r
        RETURNING id
    ), attempts_back AS (
        INSERT INTO run_attempts
        SELECT a.* FROM back_attempts x, LATERAL jsonb_populate_record(NULL::run_attempts, to_jsonb(x)) a
    )
    SELECT count(*) INTO restored FROM run_back;
    RETURN restored > 0;
END
$$;

-- The history partitions that hold only runs finished before p_horizon (their upper bound is at or before it), oldest
-- first, each as its first UTC day (YYYYMMDD, the partitions' suffix).
CREATE OR REPLACE FUNCTION forgeflow_history_droppable(p_horizon timestamptz) RETURNS SETOF text
    LANGUAGE sql STABLE AS $$
    SELECT b.suffix FROM forgeflow_history_bounds() b WHERE b.upper_at <= p_horizon ORDER BY 1
$$;

-- Drops one partition of history (both tables', named by its first day as forgeflow_history_droppable says). The
-- caller sets lock_timeout: dropping a partition locks its parent.
CREATE OR REPLACE FUNCTION forgeflow_drop_history_day(p_day text) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    IF p_day !~ '^[0-9]{8}$' THEN
        RAISE EXCEPTION 'not a day of history: %', p_day USING ERRCODE = '22023';
    END IF;
    EXECUTE format('DROP TABLE IF EXISTS %I, %I', 'attempt_history_p' || p_day, 'run_history_p' || p_day);
    DELETE FROM history_days WHERE day = to_date(p_day, 'YYYYMMDD');
    DELETE FROM history_counts WHERE day = to_date(p_day, 'YYYYMMDD');
END
$$;

-- Analyzes one history partition (PostgresRetention.analyzeStale, where autovacuum is off).
CREATE OR REPLACE FUNCTION forgeflow_analyze_history(p_table text) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    IF p_table !~ '^(run|attempt)_history_p[0-9]{8}$' THEN
        RAISE EXCEPTION 'not a history partition: %', p_table USING ERRCODE = '22023';
    END IF;
    EXECUTE format('ANALYZE %I', p_table);
END
$$;

-- One page of the run lists' finished history (RunSql/listMatching.sql and listForDisplayMatching.sql), newest id
-- first: the filters of GET /api/runs (null: none), below p_after, at most p_limit rows from each partition it reads.
-- One statement over the partitioned table would be a merge, which starts by reading every partition to its first
-- match (a rare label: thousands of rows in each of a hundred days) while the planner costs it as if matches were spread
-- evenly. Here each partition is planned for the values on its own (EXECUTE), partitions are read in the order of the
-- newest id they hold (history_days, kept by the move), and reading stops once p_limit rows are found that are all
-- newer than anything the next partition holds. Partitions wholly before p_finished_after are not read.
CREATE OR REPLACE FUNCTION forgeflow_history_page(p_job uuid, p_status text, p_queue text, p_labels jsonb,
                                                  p_scheduled_after timestamptz, p_scheduled_before timestamptz,
                                                  p_finished_after timestamptz, p_tenant text, p_after uuid,
                                                  p_limit integer)
    -- rows of run_history, whose columns are those of runs (RunHistoryIT); typed as runs so that the function does not
    -- depend on run_history, which 0033's rollback drops
    RETURNS SETOF runs
    LANGUAGE plpgsql STABLE AS $$
DECLARE
    filtered CONSTANT text := ' r WHERE ($1 IS NULL OR r.job_id = $1)'
        || ' AND ($2 IS NULL OR r.status = $2)'
        || ' AND ($3 IS NULL OR (r.queue = $3 AND ($3 = ''default'' OR r.queue <> ''default'')))'
        || ' AND ($4 IS NULL OR (r.labels <> ''{}''::jsonb AND r.labels @> $4))'
        || ' AND ($5 IS NULL OR r.scheduled_for > $5)'
        || ' AND ($6 IS NULL OR r.scheduled_for < $6)'
        || ' AND ($7 IS NULL OR r.finished_at > $7)'
        || ' AND ($8 IS NULL OR (r.tenant = $8 AND ($8 = ''default'' OR r.tenant <> ''default'')))'
        || ' AND ($9 IS NULL OR r.id < $9)'
        || ' ORDER BY r.id DESC LIMIT $10';
    v_name text;
    v_newest uuid;
    found_ids uuid[] := '{}';
    kth uuid;
    v_row runs;
BEGIN
    FOR v_name, v_newest IN
        SELECT 'run_history_p' || to_char(d.day, 'YYYYMMDD'), d.newest_id
        FROM history_days d
        WHERE p_finished_after IS NULL
           OR to_char(d.day, 'YYYYMMDD') NOT IN (SELECT b.suffix FROM forgeflow_history_bounds() b
                                                 WHERE b.upper_at <= p_finished_after)
        ORDER BY d.newest_id DESC
    LOOP
        CONTINUE WHEN to_regclass(quote_ident(v_name)) IS NULL;
        IF cardinality(found_ids) >= p_limit THEN
            SELECT f INTO kth FROM unnest(found_ids) AS f ORDER BY f DESC OFFSET p_limit - 1 LIMIT 1;
            EXIT WHEN kth > v_newest;
        END IF;
        FOR v_row IN EXECUTE format('SELECT * FROM %I', v_name) || filtered
            USING p_job, p_status, p_queue, p_labels, p_scheduled_after, p_scheduled_before, p_finished_after,
                  p_tenant, p_after, p_limit
        LOOP
            found_ids := found_ids || v_row.id;
            RETURN NEXT v_row;
        END LOOP;
    END LOOP;
END
$$;
