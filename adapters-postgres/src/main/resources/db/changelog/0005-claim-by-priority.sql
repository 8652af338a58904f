--liquibase formatted sql

-- The claim's open path reads due runs priority by priority (issue 9). The pending indexes lead with priority, so
-- 0004's single scan ordered by (priority, scheduled_for, id) and bounded only by scheduled_for <= now read every run
-- scheduled for later before it could answer: a claim with nothing due cost ~2 ms with 58,000 future runs and grew
-- with them (delayed jobs, retries waiting out their backoff). Now each priority is one index range, read in claim
-- order until the limit is reached; the probes for limited or keyed runs are per priority too. The guarded path is
-- unchanged. Same signature, same results in the same order. The function runs with sequential scans, bitmap scans and
-- sorts disabled (where an index can serve instead), so that a plan it made while the tables were small, and keeps,
-- never reads all due runs to sort them.

--changeset forgeflow:0005-claim-by-priority splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_claim(p_worker text, p_executors text[], p_include text[], p_exclude text[],
                                p_limit integer, p_lease_ms bigint, p_now timestamptz)
    RETURNS SETOF runs
    LANGUAGE plpgsql VOLATILE
    -- the function's statements keep their plans for the connection's life; one made while the tables were small
    -- could read every due run and sort them, kept as the tables grow (PlanStabilityIT saw it): plans here read the
    -- indexes in claim order and stop at the limit
    SET enable_seqscan = off
    SET enable_bitmapscan = off
    SET enable_sort = off
    AS $$
DECLARE
    v_now       timestamptz := coalesce(p_now, now());
    v_guarded   text[];
    v_paused    text[];
    v_left      integer := p_limit;
    v_full_keys text[];
    v_full_q    text[];
    v_cand      uuid[];
    v_c_queues  text[];
    v_c_keys    text[];
    v_q_names   text[] := '{}';
    v_q_cap     integer[] := '{}';
    v_q_rated   boolean[] := '{}';
    v_k_names   text[] := '{}';
    v_k_cap     integer[] := '{}';
    v_ids       uuid[] := '{}';
    v_open      uuid[] := '{}';
    v_chosen    uuid[];
    v_has_guarded boolean;
    v_qi        integer;
    v_ki        integer;
    v_key       text;
    v_row       record;
    v_p         integer;
    v_n         integer;
BEGIN
    IF p_limit < 1 THEN
        RETURN;
    END IF;
    SELECT coalesce(array_agg(name), '{}'), coalesce(array_agg(name) FILTER (WHERE paused), '{}')
    INTO v_guarded, v_paused
    FROM queues
    WHERE paused OR max_running IS NOT NULL OR rate_count IS NOT NULL;

    -- is anything guarded due at all? (an index probe or two); if not, the open path alone, as one statement
    -- (one probe per priority: the pending indexes lead with priority, so a single range scan bounded only by
    -- scheduled_for would read every run scheduled for later, however many, before answering)
    v_has_guarded := EXISTS (SELECT 1 FROM generate_series(1, 9) AS p(priority)
                             WHERE EXISTS (SELECT 1 FROM runs WHERE status = 'pending' AND concurrency_key IS NOT NULL
                                                              AND priority = p.priority AND scheduled_for <= v_now))
        OR (cardinality(v_guarded) > cardinality(v_paused)
            AND EXISTS (SELECT 1 FROM unnest(v_guarded) AS gq(name), generate_series(1, 9) AS p(priority)
                        WHERE gq.name <> ALL (v_paused)
                          AND EXISTS (SELECT 1 FROM runs WHERE status = 'pending' AND queue = gq.name
                                                          AND priority = p.priority AND scheduled_for <= v_now)));
    IF NOT v_has_guarded THEN
        -- priority by priority, each an index range (priority = p AND scheduled_for <= now) read in claim order, until
        -- the limit is reached: runs scheduled for later are never read (0004 read them all before answering, about
        -- 2 ms per claim with 58,000 of them and growing with their number)
        FOR v_p IN 1..9 LOOP
            IF p_include IS NOT NULL AND cardinality(p_include) = 1 THEN
                RETURN QUERY
                WITH due AS MATERIALIZED (
                    SELECT id FROM runs
                    WHERE status = 'pending' AND queue = p_include[1] AND priority = v_p AND scheduled_for <= v_now
                      AND executor = ANY (p_executors) AND concurrency_key IS NULL
                      AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                    ORDER BY scheduled_for, id
                    LIMIT v_left
                    FOR UPDATE SKIP LOCKED
                ), claimed AS (
                    UPDATE runs r
                    SET status = 'running', worker_id = p_worker, attempt = r.attempt + 1, started_at = v_now,
                        finished_at = NULL, lease_expires_at = v_now + p_lease_ms * interval '1 millisecond',
                        cancel_requested = false
                    FROM due WHERE r.id = due.id
                    RETURNING r.*
                ), started AS (
                    INSERT INTO run_attempts (run_id, attempt, worker_id, started_at)
                    SELECT id, attempt, worker_id, started_at FROM claimed
                    ON CONFLICT (run_id, attempt) DO NOTHING
                )
                SELECT * FROM claimed;
            ELSE
                RETURN QUERY
                WITH due AS MATERIALIZED (
                    SELECT id FROM runs
                    WHERE status = 'pending' AND priority = v_p AND scheduled_for <= v_now
                      AND executor = ANY (p_executors) AND concurrency_key IS NULL
                      AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                      AND (p_include IS NULL OR queue = ANY (p_include))
                    ORDER BY scheduled_for, id
                    LIMIT v_left
                    FOR UPDATE SKIP LOCKED
                ), claimed AS (
                    UPDATE runs r
                    SET status = 'running', worker_id = p_worker, attempt = r.attempt + 1, started_at = v_now,
                        finished_at = NULL, lease_expires_at = v_now + p_lease_ms * interval '1 millisecond',
                        cancel_requested = false
                    FROM due WHERE r.id = due.id
                    RETURNING r.*
                ), started AS (
                    INSERT INTO run_attempts (run_id, attempt, worker_id, started_at)
                    SELECT id, attempt, worker_id, started_at FROM claimed
                    ON CONFLICT (run_id, attempt) DO NOTHING
                )
                SELECT * FROM claimed;
            END IF;
            GET DIAGNOSTICS v_n = ROW_COUNT;
            v_left := v_left - v_n;
            EXIT WHEN v_left <= 0;
        END LOOP;
        RETURN;
    END IF;

    -- guarded runs are due: lock the best open candidates first (without claiming them), admit guarded ones under
    -- their limits, then claim the first p_limit of both in claim order, so a limited or keyed run of priority 1 is
    -- never passed over for an open run of priority 9
    SELECT coalesce(array_agg(o.id), '{}') INTO v_open
    FROM (
        SELECT id FROM runs
        WHERE status = 'pending' AND scheduled_for <= v_now
          AND executor = ANY (p_executors) AND concurrency_key IS NULL
          AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
          AND (p_include IS NULL OR queue = ANY (p_include))
        ORDER BY priority, scheduled_for, id
        LIMIT p_limit
        FOR UPDATE SKIP LOCKED
    ) o;

    -- pre-filter (no locks, may be stale; the counts after the locks decide): keys and queues already full
    SELECT coalesce(array_agg(k.concurrency_key), '{}') INTO v_full_keys
    FROM (SELECT concurrency_key, count(*) AS n FROM runs
          WHERE status = 'running' AND concurrency_key IS NOT NULL AND lease_expires_at > v_now
          GROUP BY concurrency_key) k
    WHERE k.n >= least((SELECT min(max_concurrent) FROM runs
                        WHERE concurrency_key = k.concurrency_key AND status IN ('pending', 'running')),
                       (SELECT min(max_concurrent) FROM jobs
                        WHERE concurrency_key = k.concurrency_key AND status IN ('active', 'paused')));
    SELECT coalesce(array_agg(q.name), '{}') INTO v_full_q
    FROM queues q
    WHERE q.name = ANY (v_guarded)
      AND (q.paused
           OR (q.max_running IS NOT NULL AND q.max_running <= (SELECT count(*) FROM runs
                  WHERE status = 'running' AND queue = q.name AND lease_expires_at > v_now))
           OR (q.rate_count IS NOT NULL AND q.rate_count <= (SELECT count(*) FROM queue_starts s
                  WHERE s.queue = q.name AND s.started_at > v_now - q.rate_per_seconds * interval '1 second')));

    -- the candidates: guarded due runs of this selection, in claim order, a few more than the room left
    SELECT array_agg(c.id ORDER BY c.priority, c.scheduled_for, c.id),
           array_agg(DISTINCT c.queue) FILTER (WHERE c.queue = ANY (v_guarded)),
           array_agg(DISTINCT c.concurrency_key) FILTER (WHERE c.concurrency_key IS NOT NULL)
    INTO v_cand, v_c_queues, v_c_keys
    FROM (
        SELECT u.id, u.priority, u.scheduled_for, u.queue, u.concurrency_key
        FROM (
            SELECT g.id, g.priority, g.scheduled_for, g.queue, g.concurrency_key
            FROM unnest(v_guarded) AS gq(name)
            CROSS JOIN LATERAL (
                SELECT id, priority, scheduled_for, queue, concurrency_key FROM runs
                WHERE status = 'pending' AND queue = gq.name AND scheduled_for <= v_now
                  AND executor = ANY (p_executors)
                  AND (concurrency_key IS NULL OR concurrency_key <> ALL (v_full_keys))
                ORDER BY priority, scheduled_for, id
                LIMIT v_left * 2 + 8
            ) g
            WHERE gq.name <> ALL (v_full_q) AND gq.name <> ALL (p_exclude)
              AND (p_include IS NULL OR gq.name = ANY (p_include))
            UNION ALL
            SELECT k.id, k.priority, k.scheduled_for, k.queue, k.concurrency_key FROM (
                SELECT id, priority, scheduled_for, queue, concurrency_key FROM runs
                WHERE status = 'pending' AND concurrency_key IS NOT NULL AND scheduled_for <= v_now
                  AND executor = ANY (p_executors) AND concurrency_key <> ALL (v_full_keys)
                  AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                  AND (p_include IS NULL OR queue = ANY (p_include))
                ORDER BY priority, scheduled_for, id
                LIMIT v_left * 2 + 8
            ) k
        ) u
        ORDER BY u.priority, u.scheduled_for, u.id
        LIMIT v_left * 2 + 8
    ) c;
    IF v_cand IS NOT NULL THEN

        -- lock what the candidates need, in a fixed order (queues by name, then keys), so claimers cannot deadlock
        IF v_c_queues IS NOT NULL THEN
            PERFORM 1 FROM queues WHERE name = ANY (v_c_queues) ORDER BY name FOR UPDATE;
        END IF;
        IF v_c_keys IS NOT NULL THEN
            FOREACH v_key IN ARRAY (SELECT array_agg(x ORDER BY x) FROM unnest(v_c_keys) AS x) LOOP
                PERFORM pg_advisory_xact_lock(20417, hashtext(v_key));
            END LOOP;
        END IF;

        -- what is free now, read after the locks (each statement here sees what committed before it started)
        v_now := coalesce(p_now, clock_timestamp());
        IF v_c_queues IS NOT NULL THEN
            DELETE FROM queue_starts s USING queues q
            WHERE q.name = ANY (v_c_queues) AND s.queue = q.name AND q.rate_count IS NOT NULL
              AND s.started_at <= v_now - q.rate_per_seconds * interval '1 second';
            SELECT array_agg(q.name), array_agg(q.cap), array_agg(q.rated)
            INTO v_q_names, v_q_cap, v_q_rated
            FROM (
                SELECT qq.name, qq.rate_count IS NOT NULL AS rated,
                       CASE WHEN qq.paused THEN 0 ELSE least(
                           coalesce(qq.max_running - (SELECT count(*) FROM runs
                                    WHERE status = 'running' AND queue = qq.name AND lease_expires_at > v_now), 2147483647),
                           coalesce(qq.rate_count - (SELECT count(*) FROM queue_starts s
                                    WHERE s.queue = qq.name
                                      AND s.started_at > v_now - qq.rate_per_seconds * interval '1 second'), 2147483647))
                       END AS cap
                FROM queues qq
                WHERE qq.name = ANY (v_c_queues)
            ) q;
        END IF;
        IF v_c_keys IS NOT NULL THEN
            SELECT array_agg(k.key), array_agg(k.cap)
            INTO v_k_names, v_k_cap
            FROM (
                SELECT x AS key,
                       coalesce(least((SELECT min(max_concurrent) FROM runs
                                       WHERE concurrency_key = x AND status IN ('pending', 'running')),
                                      (SELECT min(max_concurrent) FROM jobs
                                       WHERE concurrency_key = x AND status IN ('active', 'paused'))), 0)
                       - (SELECT count(*) FROM runs
                          WHERE status = 'running' AND concurrency_key = x AND lease_expires_at > v_now) AS cap
                FROM unnest(v_c_keys) AS x
            ) k;
        END IF;

        -- admit candidates in claim order while their queue and key have room
        FOR v_row IN
            SELECT id, queue, concurrency_key FROM runs
            WHERE id = ANY (v_cand) AND status = 'pending'
            ORDER BY priority, scheduled_for, id
            FOR UPDATE SKIP LOCKED
        LOOP
            v_qi := array_position(v_q_names, v_row.queue);
            v_ki := CASE WHEN v_row.concurrency_key IS NULL THEN NULL ELSE array_position(v_k_names, v_row.concurrency_key) END;
            CONTINUE WHEN v_qi IS NULL AND v_row.queue = ANY (v_guarded);          -- a queue limited since the peek
            CONTINUE WHEN v_row.concurrency_key IS NOT NULL AND v_ki IS NULL;
            CONTINUE WHEN v_qi IS NOT NULL AND v_q_cap[v_qi] <= 0;
            CONTINUE WHEN v_ki IS NOT NULL AND v_k_cap[v_ki] <= 0;
            IF v_qi IS NOT NULL THEN
                v_q_cap[v_qi] := v_q_cap[v_qi] - 1;
            END IF;
            IF v_ki IS NOT NULL THEN
                v_k_cap[v_ki] := v_k_cap[v_ki] - 1;
            END IF;
            v_ids := v_ids || v_row.id;
            EXIT WHEN cardinality(v_ids) >= v_left;
        END LOOP;
    END IF; -- v_cand IS NOT NULL

    -- the first p_limit of the locked open runs and the admitted guarded runs, in claim order
    SELECT coalesce(array_agg(x.id), '{}') INTO v_chosen
    FROM (SELECT id FROM runs WHERE id = ANY (v_open || v_ids) ORDER BY priority, scheduled_for, id LIMIT p_limit) x;
    IF cardinality(v_chosen) = 0 THEN
        RETURN;
    END IF;

    RETURN QUERY
    WITH claimed AS (
        UPDATE runs r
        SET status = 'running', worker_id = p_worker, attempt = r.attempt + 1, started_at = v_now,
            finished_at = NULL, lease_expires_at = v_now + p_lease_ms * interval '1 millisecond',
            cancel_requested = false
        WHERE r.id = ANY (v_chosen) AND r.status = 'pending'
        RETURNING r.*
    ), started AS (
        INSERT INTO run_attempts (run_id, attempt, worker_id, started_at)
        SELECT id, attempt, worker_id, started_at FROM claimed
        ON CONFLICT (run_id, attempt) DO NOTHING
    ), counted AS (
        INSERT INTO queue_starts (queue, started_at)
        SELECT c.queue, v_now FROM claimed c
        WHERE c.queue = ANY (v_q_names) AND v_q_rated[array_position(v_q_names, c.queue)]
    )
    SELECT * FROM claimed;
END
$$;
--rollback SELECT 1;
