--liquibase formatted sql

-- forgeflow_claim: claims due runs for one worker holder (pending -> running, attempt + 1, leased, worker_instance the
-- holder and worker_id its label; a holder whose lease row the leader ended claims nothing), optionally past a hint
-- (the last run it claimed). Called by RunSql/claim.sql. The attempt's row is written once, when it ends
-- (forgeflow_end_attempts); until then the running run is its attempt (RunSql/attempts.sql shows it). Edited in place
-- (runOnChange); its history before this file is in 0004, 0005 and 0007.
--
-- Tenants (issue 42): the runs of one tenant are claimed by forgeflow_claim_lane. While one tenant has pending runs,
-- its lane gets the whole claim (and the hint), and nothing else is written. While several have, they share the claim
-- by weighted fair share (stride scheduling): the tenants are served in order of their pass (tenant_shares), each up
-- to its weight's share of the slots left, what one leaves goes on to the next, and each served tenant's pass grows
-- by claimed / weight. A tenant back from idle starts no further back than PASS_SLACK behind the busiest, so idling
-- banks no credit. A tenant with limits (tenants.max_running, rate_count) gets at most its room.
-- Locks, in this order (STYLE.md): the rows of the limited tenants in name order; then one lane's queue rows and key
-- locks (after a lane that took any, no other lane runs in the same claim); last the tenant_shares rows in name order.

--changeset forgeflow:function-forgeflow_claim runOnChange:true splitStatements:false
-- forgeflow_claim_lane: the claim of one tenant's runs (every read of pending runs is of p_tenant's; a run's tenant is
-- its job's; so are the queues' settings and counts, queues (tenant, name)). SKIP LOCKED on the candidates; a limited
-- queue's row (the tenant's, in name order) and a concurrency key's advisory
-- lock are taken before its runs are counted, so concurrent claimers cannot overshoot a limit; so is a throttle key's
-- (20421, after the concurrency keys'), and a throttled run over its key's limit is deferred (its scheduled_for moved
-- to when the window has room) rather than left due. A run is matched by its claim key (forgeflow_claim_key.sql: the
-- executor, or java:<handler>). Sets forgeflow.claim_locked for the transaction when it took queue or key locks.
-- The tenant is an index condition where the reads go in the order of runs_pending_tenant_idx (the open runs) or of
-- runs_pending_tenant_queue_idx (one queue's runs: the included queues', the limited queues' probes and candidates).
-- The probes for keyed and throttled runs ignore it (they may send a lane down the guarded path for another tenant's
-- runs, which costs reading, never a run), and their candidates filter on it, "(tenant = p_tenant) IS TRUE", in the
-- order of their own partial indexes: a plan that read them through the tenant's index read every pending run of the
-- tenant.
CREATE OR REPLACE FUNCTION forgeflow_claim_lane(p_worker text, p_label text, p_tenant text, p_executors text[],
                                p_include text[], p_exclude text[], p_limit integer, p_lease_ms bigint,
                                p_now timestamptz, p_after_priority integer, p_after_scheduled timestamptz,
                                p_after_id uuid)
    RETURNS SETOF runs
    LANGUAGE plpgsql VOLATILE AS $$
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
    v_more      uuid[];
    v_p         integer;
    v_next      integer;
    v_due       boolean;
    v_n         integer;
    v_room      integer := p_limit;
    v_has_guarded boolean;
    v_qi        integer;
    v_ki        integer;
    v_key       text;
    v_row       record;
    v_lo_s      timestamptz;
    v_lo_id     uuid;
    v_open_exists boolean := true;
    v_lo_q      text;
    v_label     text := p_label;
    -- throttle keys (issue 44): null until a candidate has one, so a claim without them initialises nothing
    v_c_tkeys   text[];
    v_t_names   text[];
    v_t_used    integer[];
    v_t_free    timestamptz[];
    v_t_late    integer[];
    v_ti        integer;
    v_defer     uuid[];
    v_defer_at  timestamptz[];
    v_include   text[];
BEGIN
    IF p_limit < 1 THEN
        RETURN;
    END IF;
    SELECT coalesce(array_agg(name), '{}'), coalesce(array_agg(name) FILTER (WHERE paused), '{}')
    INTO v_guarded, v_paused
    FROM queues
    WHERE tenant = p_tenant AND (paused OR max_running IS NOT NULL OR rate_count IS NOT NULL);

    -- is anything guarded due at all? Keyed runs: one index descent when none is pending, else one per priority; then
    -- one per priority for every limited queue that is not paused. Each probe is LIMIT 1 in index order, so no plan
    -- can turn it into a scan.
    -- (the first probes read in their partial index's order, as scalar subqueries: an EXISTS drops its ORDER BY, and
    -- a plan made on a small table read it through runs_pending_tenant_idx, every pending run)
    v_has_guarded := ((SELECT priority FROM runs WHERE status = 'pending' AND concurrency_key IS NOT NULL
                       ORDER BY priority, scheduled_for, id LIMIT 1) IS NOT NULL
                      AND EXISTS (SELECT 1 FROM generate_series(1, 9) AS p (p)
                                  CROSS JOIN LATERAL (SELECT 1 FROM runs
                                                      WHERE status = 'pending' AND concurrency_key IS NOT NULL
                                                        AND priority = p.p AND scheduled_for <= v_now
                                                      ORDER BY scheduled_for, id LIMIT 1) k))
        -- throttled runs (issue 44): the same two probes on their own partial index
        OR ((SELECT priority FROM runs WHERE status = 'pending' AND throttle_key IS NOT NULL
             ORDER BY priority, scheduled_for, id LIMIT 1) IS NOT NULL
            AND EXISTS (SELECT 1 FROM generate_series(1, 9) AS p (p)
                        CROSS JOIN LATERAL (SELECT 1 FROM runs
                                            WHERE status = 'pending' AND throttle_key IS NOT NULL
                                              AND priority = p.p AND scheduled_for <= v_now
                                            ORDER BY scheduled_for, id LIMIT 1) t))
        OR (cardinality(v_guarded) > cardinality(v_paused)
            AND EXISTS (SELECT 1 FROM unnest(v_guarded) AS gq (name)
                        CROSS JOIN generate_series(1, 9) AS p (p)
                        CROSS JOIN LATERAL (SELECT 1 FROM runs
                                            WHERE status = 'pending' AND tenant = p_tenant AND queue = gq.name
                                              AND priority = p.p AND scheduled_for <= v_now
                                            ORDER BY scheduled_for, id LIMIT 1) q
                        WHERE gq.name <> ALL (v_paused)));

    -- with guarded runs due, is a run of any other queue pending at all? One descent of the tenant's per-queue index
    -- for each gap between the guarded queues' names. When none is, every pending run is guarded, and the open
    -- candidates' statement below would read every due run of each priority only to find none (in a drain of runs
    -- of a limited queue: 3.5 of 6.5 ms per claim, before this test).
    IF v_has_guarded THEN
        v_open_exists := false;
        v_lo_q := '';
        FOREACH v_key IN ARRAY (SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM unnest(v_guarded) AS x) LOOP
            IF (SELECT queue FROM runs WHERE status = 'pending' AND tenant = p_tenant AND queue > v_lo_q
                AND queue < v_key ORDER BY queue LIMIT 1) IS NOT NULL THEN
                v_open_exists := true;
                EXIT;
            END IF;
            v_lo_q := v_key;
        END LOOP;
        -- (ordered scalar subqueries, for the reason the probes above are)
        v_open_exists := v_open_exists OR (SELECT queue FROM runs WHERE status = 'pending' AND tenant = p_tenant
                                           AND queue > v_lo_q ORDER BY queue LIMIT 1) IS NOT NULL;
    END IF;

    -- The open runs (of open queues, without a concurrency key), priority by priority in claim order. The next
    -- priority that has a pending run is found by one index descent (the first pending run after the priorities
    -- already read); only a priority whose first run is due is read, and only its due range. While nothing guarded is
    -- due, they are claimed right away, one statement per priority, up to p_limit; otherwise they are locked
    -- (FOR UPDATE SKIP LOCKED) as candidates to merge with the admitted guarded runs below.
    -- Each statement takes at most 1,000 rows under its constant LIMIT and then v_room of them under the outer one,
    -- which pulls rows (and locks) only as far as it needs: the constant lets every cached plan read the index in
    -- order, where a limit it cannot see may get a plan that reads and sorts the whole due range of a priority.
    -- A worker's own queues (p_include): the same loop, each queue read from its own place in
    -- runs_pending_tenant_queue_idx (one descent per queue for the next priority, one ordered range per queue of a due
    -- one) and merged in claim order, so no run of another queue is read. Each queue's range locks at most v_room
    -- rows: with several queues a claim may hold a few it does not take, until it commits.
    IF p_include IS NOT NULL AND (NOT v_has_guarded OR v_open_exists) THEN
        v_include := ARRAY(SELECT DISTINCT x FROM unnest(p_include) AS x
                           WHERE x <> ALL (v_guarded) AND x <> ALL (p_exclude));
        v_p := 0;
        LOOP
            EXIT WHEN cardinality(v_include) = 0;
            IF p_after_id IS NOT NULL AND v_p < p_after_priority THEN
                SELECT n.priority, n.scheduled_for <= v_now INTO v_next, v_due
                FROM unnest(v_include) AS q (name)
                CROSS JOIN LATERAL (SELECT priority, scheduled_for FROM runs
                                    WHERE status = 'pending' AND tenant = p_tenant AND queue = q.name AND priority > v_p
                                      AND priority < p_after_priority
                                    ORDER BY priority, scheduled_for, id
                                    LIMIT 1) n
                ORDER BY n.priority, n.scheduled_for
                LIMIT 1;
                IF NOT FOUND THEN
                    SELECT n.priority, n.scheduled_for <= v_now INTO v_next, v_due
                    FROM unnest(v_include) AS q (name)
                    CROSS JOIN LATERAL (SELECT priority, scheduled_for FROM runs
                                        WHERE status = 'pending' AND tenant = p_tenant AND queue = q.name
                                          AND (priority, scheduled_for, id) > (p_after_priority, p_after_scheduled, p_after_id)
                                        ORDER BY priority, scheduled_for, id
                                        LIMIT 1) n
                    ORDER BY n.priority, n.scheduled_for
                    LIMIT 1;
                END IF;
            ELSE
                SELECT n.priority, n.scheduled_for <= v_now INTO v_next, v_due
                FROM unnest(v_include) AS q (name)
                CROSS JOIN LATERAL (SELECT priority, scheduled_for FROM runs
                                    WHERE status = 'pending' AND tenant = p_tenant AND queue = q.name AND priority > v_p
                                    ORDER BY priority, scheduled_for, id
                                    LIMIT 1) n
                ORDER BY n.priority, n.scheduled_for
                LIMIT 1;
            END IF;
            EXIT WHEN NOT FOUND;
            v_p := v_next;
            IF p_after_id IS NOT NULL AND v_p = p_after_priority THEN
                v_lo_s := p_after_scheduled;
                v_lo_id := p_after_id;
            ELSE
                v_lo_s := '-infinity';
                v_lo_id := '00000000-0000-0000-0000-000000000000';
            END IF;
            CONTINUE WHEN NOT v_due;
            LOOP -- again while the constant limit was what stopped a statement
                IF NOT v_has_guarded THEN
                    RETURN QUERY
                    WITH due AS MATERIALIZED (
                        SELECT c.id FROM unnest(v_include) AS q (name)
                        CROSS JOIN LATERAL (
                            SELECT first.id, first.scheduled_for FROM (
                                SELECT id, scheduled_for FROM runs
                                WHERE status = 'pending' AND tenant = p_tenant AND queue = q.name AND priority = v_p
                                  AND scheduled_for <= v_now AND (scheduled_for, id) > (v_lo_s, v_lo_id)
                                  AND forgeflow_claim_key(executor, payload) = ANY (p_executors)
                                  AND concurrency_key IS NULL AND throttle_key IS NULL
                                ORDER BY scheduled_for, id
                                LIMIT 1000
                                FOR UPDATE SKIP LOCKED
                            ) first
                            LIMIT v_room
                        ) c
                        ORDER BY c.scheduled_for, c.id
                        LIMIT v_room
                    ), claimed AS (
                        UPDATE runs r
                        SET status = 'running', worker_id = v_label, worker_instance = p_worker, attempt = r.attempt + 1, started_at = v_now,
                            finished_at = NULL, lease_expires_at = v_now + p_lease_ms * interval '1 millisecond',
                            cancel_requested = false
                        FROM due WHERE r.id = due.id
                        RETURNING r.*
                    )
                    SELECT * FROM claimed;
                    GET DIAGNOSTICS v_n = ROW_COUNT;
                ELSE
                    SELECT coalesce(array_agg(m.id), '{}') INTO v_more
                    FROM (
                        SELECT c.id FROM unnest(v_include) AS q (name)
                        CROSS JOIN LATERAL (
                            SELECT first.id, first.scheduled_for FROM (
                                SELECT id, scheduled_for FROM runs
                                WHERE status = 'pending' AND tenant = p_tenant AND queue = q.name AND priority = v_p
                                  AND scheduled_for <= v_now AND (scheduled_for, id) > (v_lo_s, v_lo_id)
                                  AND forgeflow_claim_key(executor, payload) = ANY (p_executors)
                                  AND concurrency_key IS NULL AND throttle_key IS NULL
                                  AND id <> ALL (v_open) -- rows this call locked already are not skipped
                                ORDER BY scheduled_for, id
                                LIMIT 1000
                                FOR UPDATE SKIP LOCKED
                            ) first
                            LIMIT v_room
                        ) c
                        ORDER BY c.scheduled_for, c.id
                        LIMIT v_room
                    ) m;
                    v_open := v_open || v_more;
                    v_n := cardinality(v_more);
                END IF;
                v_room := v_room - v_n;
                EXIT WHEN v_room <= 0 OR v_n < 1000;
            END LOOP;
            EXIT WHEN v_room <= 0;
        END LOOP;
    ELSIF NOT v_has_guarded OR v_open_exists THEN
        v_p := 0;
        LOOP
            IF p_after_id IS NOT NULL AND v_p < p_after_priority THEN
                -- the hint's priority is read from past the hint: first the priorities before it, then past the hint
                SELECT priority, scheduled_for <= v_now INTO v_next, v_due
                FROM runs
                WHERE status = 'pending' AND tenant = p_tenant AND priority > v_p AND priority < p_after_priority
                ORDER BY priority, scheduled_for, id
                LIMIT 1;
                IF NOT FOUND THEN
                    SELECT priority, scheduled_for <= v_now INTO v_next, v_due
                    FROM runs
                    WHERE status = 'pending' AND tenant = p_tenant
                      AND (priority, scheduled_for, id) > (p_after_priority, p_after_scheduled, p_after_id)
                    ORDER BY priority, scheduled_for, id
                    LIMIT 1;
                END IF;
            ELSE
                SELECT priority, scheduled_for <= v_now INTO v_next, v_due
                FROM runs
                WHERE status = 'pending' AND tenant = p_tenant AND priority > v_p
                ORDER BY priority, scheduled_for, id
                LIMIT 1;
            END IF;
            EXIT WHEN NOT FOUND;
            v_p := v_next;
            IF p_after_id IS NOT NULL AND v_p = p_after_priority THEN
                v_lo_s := p_after_scheduled;
                v_lo_id := p_after_id;
            ELSE
                v_lo_s := '-infinity';
                v_lo_id := '00000000-0000-0000-0000-000000000000';
            END IF;
            CONTINUE WHEN NOT v_due;
            LOOP -- again while the constant limit was what stopped a statement
                IF NOT v_has_guarded THEN
                    RETURN QUERY
                    WITH due AS MATERIALIZED (
                        SELECT first.id FROM (
                            SELECT id FROM runs
                            WHERE status = 'pending' AND tenant = p_tenant AND priority = v_p AND scheduled_for <= v_now
                              AND (scheduled_for, id) > (v_lo_s, v_lo_id)
                              AND forgeflow_claim_key(executor, payload) = ANY (p_executors) AND concurrency_key IS NULL
                              AND throttle_key IS NULL
                              AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                              AND (p_include IS NULL OR queue = ANY (p_include))
                            ORDER BY scheduled_for, id
                            LIMIT 1000
                            FOR UPDATE SKIP LOCKED
                        ) first
                        LIMIT v_room
                    ), claimed AS (
                        UPDATE runs r
                        SET status = 'running', worker_id = v_label, worker_instance = p_worker, attempt = r.attempt + 1, started_at = v_now,
                            finished_at = NULL, lease_expires_at = v_now + p_lease_ms * interval '1 millisecond',
                            cancel_requested = false
                        FROM due WHERE r.id = due.id
                        RETURNING r.*
                    )
                    SELECT * FROM claimed;
                    GET DIAGNOSTICS v_n = ROW_COUNT;
                ELSE
                    SELECT coalesce(array_agg(first.id), '{}') INTO v_more
                    FROM (
                        SELECT first.id FROM (
                            SELECT id FROM runs
                            WHERE status = 'pending' AND tenant = p_tenant AND priority = v_p AND scheduled_for <= v_now
                              AND (scheduled_for, id) > (v_lo_s, v_lo_id)
                              AND forgeflow_claim_key(executor, payload) = ANY (p_executors) AND concurrency_key IS NULL
                              AND throttle_key IS NULL
                              AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                              AND (p_include IS NULL OR queue = ANY (p_include))
                              AND id <> ALL (v_open) -- rows this call locked already are not skipped
                            ORDER BY scheduled_for, id
                            LIMIT 1000
                            FOR UPDATE SKIP LOCKED
                        ) first
                        LIMIT v_room
                    ) first;
                    v_open := v_open || v_more;
                    v_n := cardinality(v_more);
                END IF;
                v_room := v_room - v_n;
                EXIT WHEN v_room <= 0 OR v_n < 1000;
            END LOOP;
            EXIT WHEN v_room <= 0;
        END LOOP;
    END IF;

    IF NOT v_has_guarded THEN
        RETURN;
    END IF;

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
    WHERE q.tenant = p_tenant AND q.name = ANY (v_guarded)
      AND (q.paused
           OR (q.max_running IS NOT NULL AND q.max_running <= (SELECT count(*) FROM runs
                  WHERE status = 'running' AND queue = q.name AND tenant = p_tenant AND lease_expires_at > v_now))
           OR (q.rate_count IS NOT NULL AND q.rate_count <= (SELECT count(*) FROM queue_starts s
                  WHERE s.tenant = p_tenant AND s.queue = q.name
                    AND s.started_at > v_now - q.rate_per_seconds * interval '1 second')));

    -- the candidates: guarded due runs of this selection, in claim order, a few more than the room left; read per
    -- queue and priority, so never a run scheduled for later
    SELECT array_agg(c.id ORDER BY c.priority, c.scheduled_for, c.id),
           array_agg(DISTINCT c.queue) FILTER (WHERE c.queue = ANY (v_guarded)),
           array_agg(DISTINCT c.concurrency_key) FILTER (WHERE c.concurrency_key IS NOT NULL),
           array_agg(DISTINCT c.throttle_key) FILTER (WHERE c.throttle_key IS NOT NULL)
    INTO v_cand, v_c_queues, v_c_keys, v_c_tkeys
    FROM (
        SELECT u.id, u.priority, u.scheduled_for, u.queue, u.concurrency_key, u.throttle_key
        FROM (
            SELECT g.id, g.priority, g.scheduled_for, g.queue, g.concurrency_key, g.throttle_key
            FROM unnest(v_guarded) AS gq(name)
            CROSS JOIN generate_series(1, 9) AS p (p)
            CROSS JOIN LATERAL (
                SELECT id, priority, scheduled_for, queue, concurrency_key, throttle_key FROM runs
                WHERE status = 'pending' AND tenant = p_tenant AND queue = gq.name AND priority = p.p AND scheduled_for <= v_now
                  AND forgeflow_claim_key(executor, payload) = ANY (p_executors)
                  AND (concurrency_key IS NULL OR concurrency_key <> ALL (v_full_keys))
                ORDER BY scheduled_for, id
                LIMIT v_left * 2 + 8
            ) g
            WHERE gq.name <> ALL (v_full_q) AND gq.name <> ALL (p_exclude)
              AND (p_include IS NULL OR gq.name = ANY (p_include))
            UNION ALL
            SELECT k.id, k.priority, k.scheduled_for, k.queue, k.concurrency_key, k.throttle_key
            FROM generate_series(1, 9) AS p (p)
            CROSS JOIN LATERAL (
                SELECT id, priority, scheduled_for, queue, concurrency_key, throttle_key FROM runs
                WHERE status = 'pending' AND (tenant = p_tenant) IS TRUE AND concurrency_key IS NOT NULL AND priority = p.p
                  AND scheduled_for <= v_now
                  AND forgeflow_claim_key(executor, payload) = ANY (p_executors) AND concurrency_key <> ALL (v_full_keys)
                  AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                  AND (p_include IS NULL OR queue = ANY (p_include))
                ORDER BY scheduled_for, id
                LIMIT v_left * 2 + 8
            ) k
            UNION ALL
            -- throttled runs outside limited queues and concurrency keys (those come with the branches above)
            SELECT t.id, t.priority, t.scheduled_for, t.queue, t.concurrency_key, t.throttle_key
            FROM generate_series(1, 9) AS p (p)
            CROSS JOIN LATERAL (
                SELECT id, priority, scheduled_for, queue, concurrency_key, throttle_key FROM runs
                WHERE status = 'pending' AND (tenant = p_tenant) IS TRUE AND throttle_key IS NOT NULL AND priority = p.p
                  AND scheduled_for <= v_now AND concurrency_key IS NULL
                  AND forgeflow_claim_key(executor, payload) = ANY (p_executors)
                  AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                  AND (p_include IS NULL OR queue = ANY (p_include))
                ORDER BY scheduled_for, id
                LIMIT v_left * 2 + 8
            ) t
        ) u
        ORDER BY u.priority, u.scheduled_for, u.id
        LIMIT v_left * 2 + 8
    ) c;
    IF v_cand IS NOT NULL THEN

        -- lock what the candidates need, in a fixed order (queues by name, then keys), so claimers cannot deadlock
        PERFORM set_config('forgeflow.claim_locked', 'on', true);
        IF v_c_queues IS NOT NULL THEN
            PERFORM 1 FROM queues WHERE tenant = p_tenant AND name = ANY (v_c_queues) ORDER BY name FOR UPDATE;
        END IF;
        IF v_c_keys IS NOT NULL THEN
            FOREACH v_key IN ARRAY (SELECT array_agg(x ORDER BY x) FROM unnest(v_c_keys) AS x) LOOP
                PERFORM pg_advisory_xact_lock(20417, hashtext(v_key));
            END LOOP;
        END IF;
        IF v_c_tkeys IS NOT NULL THEN
            FOREACH v_key IN ARRAY (SELECT array_agg(x ORDER BY x) FROM unnest(v_c_tkeys) AS x) LOOP
                PERFORM pg_advisory_xact_lock(20421, hashtext(v_key));
            END LOOP;
        END IF;

        -- what is free now, read after the locks (each statement here sees what committed before it started)
        v_now := coalesce(p_now, clock_timestamp());
        IF v_c_queues IS NOT NULL THEN
            DELETE FROM queue_starts s USING queues q
            WHERE q.tenant = p_tenant AND q.name = ANY (v_c_queues) AND s.tenant = p_tenant AND s.queue = q.name
              AND q.rate_count IS NOT NULL
              AND s.started_at <= v_now - q.rate_per_seconds * interval '1 second';
            SELECT array_agg(q.name), array_agg(q.cap), array_agg(q.rated)
            INTO v_q_names, v_q_cap, v_q_rated
            FROM (
                SELECT qq.name, qq.rate_count IS NOT NULL AS rated,
                       CASE WHEN qq.paused THEN 0 ELSE least(
                           coalesce(qq.max_running - (SELECT count(*) FROM runs
                                    WHERE status = 'running' AND queue = qq.name AND tenant = p_tenant
                                      AND lease_expires_at > v_now), 2147483647),
                           coalesce(qq.rate_count - (SELECT count(*) FROM queue_starts s
                                    WHERE s.tenant = p_tenant AND s.queue = qq.name
                                      AND s.started_at > v_now - qq.rate_per_seconds * interval '1 second'), 2147483647))
                       END AS cap
                FROM queues qq
                WHERE qq.tenant = p_tenant AND qq.name = ANY (v_c_queues)
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

        IF v_c_tkeys IS NOT NULL THEN
            -- a throttle key's starts in its window (every run sharing the key is held to its own count)
            DELETE FROM throttle_starts s WHERE s.throttle_key = ANY (v_c_tkeys) AND s.expires_at <= v_now;
            SELECT array_agg(x), array_agg(t.n), array_agg(t.first_free), array_agg(0)
            INTO v_t_names, v_t_used, v_t_free, v_t_late
            FROM unnest(v_c_tkeys) AS x
            CROSS JOIN LATERAL (SELECT count(*)::integer AS n, min(s.expires_at) AS first_free
                                FROM throttle_starts s WHERE s.throttle_key = x) t;
        END IF;

        -- From here the statements that look runs up by a list of ids run through EXECUTE, planned on every call
        -- for the actual ids: a cached generic plan made while the table was small reads all of it instead of a few
        -- primary-key entries (PlanStabilityIT). Only guarded claims pay the planning.

        -- admit candidates in claim order while their queue and key have room (the row a lock returns is its
        -- latest version, so its status is checked after the lock)
        FOR v_row IN EXECUTE $admit$
            SELECT id, status, queue, concurrency_key, throttle_key, throttle_count, throttle_per_seconds FROM runs
            WHERE id = ANY ($1)
            ORDER BY priority, scheduled_for, id
            FOR UPDATE SKIP LOCKED$admit$
            USING v_cand
        LOOP
            CONTINUE WHEN v_row.status <> 'pending';
            v_qi := array_position(v_q_names, v_row.queue);
            v_ki := CASE WHEN v_row.concurrency_key IS NULL THEN NULL ELSE array_position(v_k_names, v_row.concurrency_key) END;
            CONTINUE WHEN v_qi IS NULL AND v_row.queue = ANY (v_guarded);          -- a queue limited since the peek
            CONTINUE WHEN v_row.concurrency_key IS NOT NULL AND v_ki IS NULL;
            CONTINUE WHEN v_qi IS NOT NULL AND v_q_cap[v_qi] <= 0;
            CONTINUE WHEN v_ki IS NOT NULL AND v_k_cap[v_ki] <= 0;
            v_ti := CASE WHEN v_row.throttle_key IS NULL THEN NULL ELSE array_position(v_t_names, v_row.throttle_key) END;
            CONTINUE WHEN v_row.throttle_key IS NOT NULL AND v_ti IS NULL;
            IF v_ti IS NOT NULL AND v_t_used[v_ti] >= v_row.throttle_count THEN
                -- over its key's limit: due when the window has room, the runs deferred after it a window later each
                v_defer := coalesce(v_defer, '{}') || v_row.id;
                v_defer_at := coalesce(v_defer_at, '{}') || (coalesce(v_t_free[v_ti], v_now)
                    + (v_t_late[v_ti] / v_row.throttle_count) * v_row.throttle_per_seconds * interval '1 second');
                v_t_late[v_ti] := v_t_late[v_ti] + 1;
                CONTINUE;
            END IF;
            IF v_ti IS NOT NULL THEN
                v_t_used[v_ti] := v_t_used[v_ti] + 1;
                v_t_free[v_ti] := least(coalesce(v_t_free[v_ti], 'infinity'),
                                        v_now + v_row.throttle_per_seconds * interval '1 second');
            END IF;
            IF v_qi IS NOT NULL THEN
                v_q_cap[v_qi] := v_q_cap[v_qi] - 1;
            END IF;
            IF v_ki IS NOT NULL THEN
                v_k_cap[v_ki] := v_k_cap[v_ki] - 1;
            END IF;
            v_ids := v_ids || v_row.id;
            EXIT WHEN cardinality(v_ids) >= v_left;
        END LOOP;
        IF v_defer IS NOT NULL THEN
            EXECUTE $defer$
                UPDATE runs r SET scheduled_for = d.at
                FROM unnest($1, $2) AS d (id, at)
                WHERE r.id = d.id AND r.status = 'pending'$defer$
                USING v_defer, v_defer_at;
        END IF;
    END IF; -- v_cand IS NOT NULL

    -- the first p_limit of the locked open runs and the admitted guarded runs, in claim order
    EXECUTE $chosen$
        SELECT coalesce(array_agg(x.id), '{}')
        FROM (SELECT id FROM runs WHERE id = ANY ($1) ORDER BY priority, scheduled_for, id LIMIT $2) x$chosen$
        INTO v_chosen
        USING v_open || v_ids, p_limit;
    IF cardinality(v_chosen) = 0 THEN
        RETURN;
    END IF;

    -- every chosen run is pending and locked by this call (FOR UPDATE above)
    RETURN QUERY EXECUTE $claim$
        WITH claimed AS (
            UPDATE runs r
            SET status = 'running', worker_id = $7, worker_instance = $2, attempt = r.attempt + 1, started_at = $3,
                finished_at = NULL, lease_expires_at = $3 + $4 * interval '1 millisecond',
                cancel_requested = false
            WHERE r.id = ANY ($1)
            RETURNING r.*
        ), counted AS (
            INSERT INTO queue_starts (tenant, queue, started_at)
            SELECT c.tenant, c.queue, $3 FROM claimed c
            WHERE c.queue = ANY ($5) AND ($6)[array_position($5, c.queue)]
        ), throttled AS (
            INSERT INTO throttle_starts (throttle_key, expires_at)
            SELECT c.throttle_key, $3 + c.throttle_per_seconds * interval '1 second' FROM claimed c
            WHERE c.throttle_key IS NOT NULL
        )
        SELECT * FROM claimed$claim$
        USING v_chosen, p_worker, v_now, p_lease_ms, v_q_names, v_q_rated, v_label;
END
$$;

CREATE OR REPLACE FUNCTION forgeflow_claim(p_worker text, p_executors text[], p_include text[], p_exclude text[],
                                p_limit integer, p_lease_ms bigint, p_now timestamptz,
                                p_after_priority integer, p_after_scheduled timestamptz, p_after_id uuid)
    RETURNS SETOF runs
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    PASS_SLACK  CONSTANT double precision := 16;
    v_now       timestamptz := coalesce(p_now, now());
    v_label     text := forgeflow_worker_label(p_worker);
    v_ended     boolean;
    v_first     text;
    v_second    text;
    v_names     text[];
    v_weights   integer[];
    v_rooms     integer[];
    v_rated     boolean[];
    v_taken     integer[];
    v_offered   integer[];
    v_i         integer;
    v_left      integer := p_limit;
    v_wsum      bigint;
    v_want      integer;
    v_n         integer;
    v_sweep     integer;
    v_floor     double precision;
BEGIN
    IF p_limit < 1 THEN
        RETURN;
    END IF;
    -- the holder's lease row (0016): made by its first claim, a plain read after that; an ended holder claims nothing
    SELECT ended_at IS NOT NULL INTO v_ended FROM worker_leases WHERE instance = p_worker;
    IF NOT FOUND THEN
        INSERT INTO worker_leases (instance, worker_id, started_at, expires_at, lease_ms)
        VALUES (p_worker, v_label, v_now, v_now + p_lease_ms * interval '1 millisecond', p_lease_ms)
        ON CONFLICT (instance) DO NOTHING;
    ELSIF v_ended THEN
        RETURN;
    END IF;

    -- the tenants with pending runs: one descent of runs_pending_tenant_idx from its end, and one more to know there is
    -- no other. From the end: a drain leaves the entries of its claimed runs at the start of its tenant's range until
    -- VACUUM, which a claim with a hint does not read again, and neither should this. In index order, LIMIT 1: as a
    -- NOT EXISTS, a generic plan read every pending run.
    SELECT tenant INTO v_first FROM runs WHERE status = 'pending' ORDER BY tenant DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT tenant INTO v_second FROM runs WHERE status = 'pending' AND tenant < v_first ORDER BY tenant DESC LIMIT 1;
    IF v_second IS NULL THEN
        -- one tenant without limits (every cluster that never names a tenant): its lane, with the hint, and nothing else
        PERFORM 1 FROM tenants WHERE name = v_first AND (max_running IS NOT NULL OR rate_count IS NOT NULL);
        IF NOT FOUND THEN
            RETURN QUERY SELECT * FROM forgeflow_claim_lane(p_worker, v_label, v_first, p_executors, p_include,
                p_exclude, p_limit, p_lease_ms, p_now, p_after_priority, p_after_scheduled, p_after_id);
            RETURN;
        END IF;
        v_names := ARRAY[v_first];
    ELSE
        -- the tenants with due runs: a loose index scan, one descent per (tenant, priority) with pending runs; the
        -- first entry of each is its earliest, so the group is due when that one is. No lane runs for a tenant whose
        -- pending runs are all for later.
        WITH RECURSIVE g (tenant, priority, due) AS (
            (SELECT r.tenant, r.priority, r.scheduled_for <= v_now FROM runs r WHERE r.status = 'pending'
             ORDER BY r.tenant, r.priority, r.scheduled_for, r.id LIMIT 1)
            UNION ALL
            SELECT n.tenant, n.priority, n.due
            FROM g CROSS JOIN LATERAL (
                SELECT r.tenant, r.priority, r.scheduled_for <= v_now AS due FROM runs r
                WHERE r.status = 'pending' AND (r.tenant, r.priority) > (g.tenant, g.priority)
                ORDER BY r.tenant, r.priority, r.scheduled_for, r.id LIMIT 1) n
        )
        SELECT array_agg(DISTINCT g.tenant) INTO v_names FROM g WHERE g.due;
        IF v_names IS NULL THEN
            RETURN;
        END IF;
    END IF;

    -- settings, pass and room of each, in pass order (limited tenants' rows locked first, in name order)
    PERFORM 1 FROM tenants
    WHERE name = ANY (v_names) AND (max_running IS NOT NULL OR rate_count IS NOT NULL)
    ORDER BY name FOR UPDATE;
    IF cardinality(v_names) > 1 THEN
        SELECT max(s.pass) - PASS_SLACK INTO v_floor FROM tenant_shares s WHERE s.tenant = ANY (v_names);
    END IF;
    v_floor := greatest(coalesce(v_floor, 0), 0); -- never below 0, the pass of a tenant never served
    DELETE FROM tenant_starts ts USING tenants t
    WHERE t.name = ANY (v_names) AND t.rate_count IS NOT NULL AND ts.tenant = t.name
      AND ts.started_at <= v_now - t.rate_per_seconds * interval '1 second';
    SELECT array_agg(x.name ORDER BY x.pass, x.name), array_agg(x.weight ORDER BY x.pass, x.name),
           array_agg(x.room ORDER BY x.pass, x.name),
           array_agg(x.rated ORDER BY x.pass, x.name)
    INTO v_names, v_weights, v_rooms, v_rated
    FROM (
        SELECT n.name, coalesce(t.weight, 1) AS weight, greatest(coalesce(s.pass, 0), v_floor) AS pass,
               t.rate_count IS NOT NULL AS rated,
               -- counted only for a tenant with that limit (CASE, not coalesce: a subquery in an expression is
               -- evaluated even when the other operand is null)
               greatest(0, least(
                   CASE WHEN t.max_running IS NULL THEN 2147483647
                        ELSE t.max_running - (SELECT count(*) FROM runs
                             WHERE status = 'running' AND tenant = n.name AND lease_expires_at > v_now) END,
                   CASE WHEN t.rate_count IS NULL THEN 2147483647
                        ELSE t.rate_count - (SELECT count(*) FROM tenant_starts ts
                             WHERE ts.tenant = n.name
                               AND ts.started_at > v_now - t.rate_per_seconds * interval '1 second') END)) AS room
        FROM unnest(v_names) AS n (name)
        LEFT JOIN tenants t ON t.name = n.name
        LEFT JOIN tenant_shares s ON s.tenant = n.name
    ) x;

    IF cardinality(v_names) = 1 THEN
        -- one tenant: today's claim, with the hint, and no pass to keep
        IF v_rooms[1] > 0 THEN
            RETURN QUERY SELECT * FROM forgeflow_claim_lane(p_worker, v_label, v_names[1], p_executors, p_include,
                p_exclude, least(p_limit, v_rooms[1]), p_lease_ms, p_now, p_after_priority, p_after_scheduled,
                p_after_id);
            GET DIAGNOSTICS v_n = ROW_COUNT;
            IF v_rated[1] AND v_n > 0 THEN
                INSERT INTO tenant_starts (tenant, started_at) SELECT v_names[1], v_now FROM generate_series(1, v_n);
            END IF;
        END IF;
        RETURN;
    END IF;

    -- several tenants: in pass order, each up to its weight's share of what is left (at least one slot), then what is
    -- still left to those that took all they were offered. The hint is one lane's, so it is not used.
    v_taken := array_fill(0, ARRAY[cardinality(v_names)]);
    v_offered := v_taken;
    PERFORM set_config('forgeflow.claim_locked', 'off', true);
    FOR v_sweep IN 1 .. 2 LOOP
        SELECT sum(w) INTO v_wsum FROM unnest(v_weights) AS w;
        FOR v_i IN 1 .. cardinality(v_names) LOOP
            EXIT WHEN v_left <= 0 OR current_setting('forgeflow.claim_locked', true) = 'on';
            IF v_sweep = 1 THEN
                v_want := least(v_left, greatest(1, ceil(v_left::numeric * v_weights[v_i] / greatest(v_wsum, 1))::integer));
                v_wsum := v_wsum - v_weights[v_i];
            ELSIF v_taken[v_i] > 0 AND v_taken[v_i] = v_offered[v_i] THEN
                v_want := v_left;
            ELSE
                CONTINUE;
            END IF;
            v_want := least(v_want, v_rooms[v_i] - v_taken[v_i]);
            CONTINUE WHEN v_want <= 0;
            v_offered[v_i] := v_offered[v_i] + v_want;
            RETURN QUERY SELECT * FROM forgeflow_claim_lane(p_worker, v_label, v_names[v_i], p_executors, p_include,
                p_exclude, v_want, p_lease_ms, p_now, NULL, NULL, NULL);
            GET DIAGNOSTICS v_n = ROW_COUNT;
            v_taken[v_i] := v_taken[v_i] + v_n;
            v_left := v_left - v_n;
        END LOOP;
        EXIT WHEN v_left <= 0 OR current_setting('forgeflow.claim_locked', true) = 'on';
    END LOOP;

    -- starts of rate-limited tenants, and the passes of the served ones (rows in name order)
    INSERT INTO tenant_starts (tenant, started_at)
    SELECT x.name, v_now FROM unnest(v_names, v_taken, v_rated) AS x (name, taken, rated)
    CROSS JOIN LATERAL generate_series(1, x.taken)
    WHERE x.rated AND x.taken > 0;
    -- a new row starts at the floor; a row another claim moved on since it was read grows from where it is now
    INSERT INTO tenant_shares AS s (tenant, pass)
    SELECT x.name, v_floor + x.taken::double precision / x.weight
    FROM unnest(v_names, v_taken, v_weights) AS x (name, taken, weight)
    WHERE x.taken > 0
    ORDER BY x.name
    ON CONFLICT (tenant) DO UPDATE SET pass = greatest(s.pass, v_floor) + (EXCLUDED.pass - v_floor);
END
$$;
