--liquibase formatted sql

-- Named queues, cluster-wide concurrency and rate limits, and the overlap policy of recurring jobs (issue 11).
-- A run carries its job's queue and concurrency key (copied when the run is created, like executor and payload), so
-- the claim filters and counts runs without reading jobs.

--changeset forgeflow:0004-job-controls
ALTER TABLE jobs
    ADD COLUMN queue text NOT NULL DEFAULT 'default'
        CONSTRAINT jobs_queue_name CHECK (queue ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'),
    ADD COLUMN concurrency_key text
        CONSTRAINT jobs_concurrency_key_length CHECK (char_length(concurrency_key) BETWEEN 1 AND 200),
    ADD COLUMN max_concurrent integer
        CONSTRAINT jobs_max_concurrent_range CHECK (max_concurrent BETWEEN 1 AND 10000),
    ADD COLUMN overlap text NOT NULL DEFAULT 'allow'
        CONSTRAINT jobs_overlap_values CHECK (overlap IN ('allow', 'skip', 'queue_one', 'cancel_running')),
    ADD CONSTRAINT jobs_key_needs_limit CHECK (concurrency_key IS NULL OR max_concurrent IS NOT NULL);
-- a key's limit is the smallest max_concurrent among the live jobs that share it (and the live runs that carry it)
CREATE INDEX jobs_concurrency_key_idx ON jobs (concurrency_key, max_concurrent)
    WHERE concurrency_key IS NOT NULL AND status IN ('active', 'paused');
--rollback DROP INDEX jobs_concurrency_key_idx; ALTER TABLE jobs DROP COLUMN queue, DROP COLUMN concurrency_key, DROP COLUMN max_concurrent, DROP COLUMN overlap;

--changeset forgeflow:0004-run-controls
-- concurrency_key on a run is its job's key, or 'job:<job id>' when the job gave max_concurrent alone; with it the
-- run carries its job's max_concurrent. A key's limit is the smallest max_concurrent among the active or paused jobs
-- that share it and the pending or running runs that carry it.
ALTER TABLE runs
    ADD COLUMN queue text NOT NULL DEFAULT 'default',
    ADD COLUMN concurrency_key text,
    ADD COLUMN max_concurrent integer,
    ADD CONSTRAINT runs_key_has_limit CHECK ((concurrency_key IS NULL) = (max_concurrent IS NULL));
-- a queue's pending runs in claim order (claims from one queue, the guarded path, and per-queue depth)
CREATE INDEX runs_pending_by_queue_idx ON runs (queue, priority, scheduled_for, id) WHERE status = 'pending';
-- pending runs that carry a concurrency key, in claim order
CREATE INDEX runs_pending_keyed_idx ON runs (priority, scheduled_for, id)
    WHERE status = 'pending' AND concurrency_key IS NOT NULL;
-- running counts per queue and per key; a key's limit (smallest max_concurrent among its live runs)
CREATE INDEX runs_running_queue_idx ON runs (queue) WHERE status = 'running';
CREATE INDEX runs_live_key_idx ON runs (concurrency_key, max_concurrent)
    WHERE status IN ('pending', 'running') AND concurrency_key IS NOT NULL;
--rollback DROP INDEX runs_live_key_idx; DROP INDEX runs_running_queue_idx; DROP INDEX runs_pending_keyed_idx; DROP INDEX runs_pending_by_queue_idx; ALTER TABLE runs DROP COLUMN queue, DROP COLUMN concurrency_key, DROP COLUMN max_concurrent;

--changeset forgeflow:0004-queues
-- settings of queues that have any (a queue without a row is open and unlimited); the row is also the lock that
-- serialises the guarded claims of a limited queue
CREATE TABLE queues (
    name             text        PRIMARY KEY CONSTRAINT queues_name CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'),
    paused           boolean     NOT NULL DEFAULT false,
    max_running      integer     CONSTRAINT queues_max_running_range CHECK (max_running BETWEEN 1 AND 100000),
    rate_count       integer     CONSTRAINT queues_rate_count_range CHECK (rate_count BETWEEN 1 AND 1000000),
    rate_per_seconds integer     CONSTRAINT queues_rate_window_range CHECK (rate_per_seconds BETWEEN 1 AND 86400),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT queues_rate_pair CHECK ((rate_count IS NULL) = (rate_per_seconds IS NULL))
);
-- the starts of rate-limited queues within their window (older rows are deleted by the claim that holds the queue)
CREATE TABLE queue_starts (
    queue      text        NOT NULL,
    started_at timestamptz NOT NULL
);
CREATE INDEX queue_starts_queue_time_idx ON queue_starts (queue, started_at);
--rollback DROP TABLE queue_starts; DROP TABLE queues;

--changeset forgeflow:0004-claim-function splitStatements:false
-- The claim, in one round trip (SELECT * FROM forgeflow_claim(...)). Two paths:
--  * open: runs of queues without limits and without a concurrency key, exactly the earlier one-statement claim
--    (FOR UPDATE SKIP LOCKED; no other lock, no count). While no guarded run is due, this is the whole claim.
--  * guarded: runs of limited queues or with a concurrency key. It peeks at the due candidates (skipping queues and
--    keys already full), locks the rows of their queues (in name order) and their keys (transaction advisory locks,
--    in key order), and only then counts what runs and what started, in new statements: in a VOLATILE PL/pgSQL
--    function each statement takes a fresh snapshot, so a claim that waited for another claimer's lock sees that
--    claimer's committed runs. Concurrent claimers therefore cannot overshoot a limit; claimers of unrelated queues
--    and keys never wait for each other. A running run whose lease expired no longer counts (its holder is presumed
--    dead; the leader will recover it).
-- When guarded runs are due, both paths' candidates are merged and the first p_limit in claim order (priority,
-- scheduled_for, id) are claimed. Paused queues are never taken. Runs held back stay pending and use no attempt.
CREATE FUNCTION forgeflow_claim(p_worker text, p_executors text[], p_include text[], p_exclude text[],
                                p_limit integer, p_lease_ms bigint, p_now timestamptz)
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
    v_has_guarded boolean;
    v_qi        integer;
    v_ki        integer;
    v_key       text;
    v_row       record;
BEGIN
    IF p_limit < 1 THEN
        RETURN;
    END IF;
    SELECT coalesce(array_agg(name), '{}'), coalesce(array_agg(name) FILTER (WHERE paused), '{}')
    INTO v_guarded, v_paused
    FROM queues
    WHERE paused OR max_running IS NOT NULL OR rate_count IS NOT NULL;

    -- is anything guarded due at all? (an index probe or two); if not, the open path alone, as one statement
    v_has_guarded := EXISTS (SELECT 1 FROM runs WHERE status = 'pending' AND concurrency_key IS NOT NULL
                                                  AND scheduled_for <= v_now)
        OR (cardinality(v_guarded) > cardinality(v_paused)
            AND EXISTS (SELECT 1 FROM unnest(v_guarded) AS gq(name)
                        WHERE gq.name <> ALL (v_paused)
                          AND EXISTS (SELECT 1 FROM runs WHERE status = 'pending' AND queue = gq.name
                                                          AND scheduled_for <= v_now)));
    IF NOT v_has_guarded THEN
        IF p_include IS NOT NULL AND cardinality(p_include) = 1 THEN
            RETURN QUERY
            WITH due AS MATERIALIZED (
                SELECT id FROM runs
                WHERE status = 'pending' AND queue = p_include[1] AND scheduled_for <= v_now
                  AND executor = ANY (p_executors) AND concurrency_key IS NULL
                  AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                ORDER BY priority, scheduled_for, id
                LIMIT p_limit
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
                WHERE status = 'pending' AND scheduled_for <= v_now
                  AND executor = ANY (p_executors) AND concurrency_key IS NULL
                  AND queue <> ALL (v_guarded) AND queue <> ALL (p_exclude)
                  AND (p_include IS NULL OR queue = ANY (p_include))
                ORDER BY priority, scheduled_for, id
                LIMIT p_limit
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
--rollback DROP FUNCTION forgeflow_claim(text, text[], text[], text[], integer, bigint, timestamptz);
