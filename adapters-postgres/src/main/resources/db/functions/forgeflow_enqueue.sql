--liquibase formatted sql

--changeset forgeflow:function-enqueue splitStatements:false runOnChange:true
-- enqueue(): a one-off or delayed job and its first run, inside the caller's transaction (docs/API.md, "Enqueue from
-- SQL"). Stores what POST /v1/jobs stores for the same fields (submitted_via = 'sql'); checks every rule of the API
-- that needs no Java (SQLSTATE 22023, the field in the error's COLUMN and at the start of the message) and stores
-- nothing on a failure. Locks: the new rows only (and, while a node watches, a shared advisory lock nobody waits on);
-- a second caller with the same idempotency key waits on the unique index until the first commits or rolls back. The
-- wake-up (NOTIFY) is sent at the caller's commit, never before, and not at all on a rollback; while a node watches
-- for SQL enqueues none is sent (forgeflow_sql_wakeups.sql). Its search_path is the migration's (ForgeFlow's schema alone), which PostgresMigrations
-- then pins to pg_catalog, the schema, pg_temp: it never depends on the caller's.
-- Arguments are only ever added, at the end, with defaults (traceparent, tracestate: the caller's W3C trace context;
-- retry_base_seconds, retry_max_seconds: the job's retry policy, null for the node's defaults; depends_on,
-- on_parent_failure: the parent jobs it waits for and what a failed parent does to it, docs/API.md "Workflows";
-- sequence_key, on_dead: the sequence its run joins, docs/API.md "Flow control", forgeflow_sequences.sql; debounce,
-- throttle: docs/API.md "Flow control", forgeflow_flow.sql; notify: README "Notices", checked by
-- forgeflow_notify_checked). A run with a sequence_key or a debounce waits for the
-- key's lock (held by another submitter until its commit) and needs READ COMMITTED. debounced: the submission joined
-- the run it names (created false); nothing was stored. tenant: the tenant the job belongs to (README "Tenants"; null:
-- default); its keys are stored scoped to it (migration 0025), so the same key in two tenants makes two jobs.
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, text, text);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, integer, integer);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, text, text, integer, integer);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, text, text, integer, integer, uuid[], text);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, text, text, integer, integer, uuid[], text, text, text);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, text, text, integer, integer, uuid[], text, text, text);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, text, text, integer, integer, uuid[], text, text, text, jsonb, jsonb);
DROP FUNCTION IF EXISTS enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb,
                                integer, text, text, text, integer, integer, uuid[], text, text, text, jsonb, jsonb,
                                jsonb);
CREATE FUNCTION enqueue(name text, executor text, payload jsonb DEFAULT '{}', run_at timestamptz DEFAULT NULL,
                        priority integer DEFAULT 5, max_attempts integer DEFAULT 3, timeout_seconds integer DEFAULT 300,
                        queue text DEFAULT 'default', idempotency_key text DEFAULT NULL,
                        concurrency_key text DEFAULT NULL, labels jsonb DEFAULT NULL,
                        max_concurrent integer DEFAULT NULL, cron_expr text DEFAULT NULL,
                        traceparent text DEFAULT NULL, tracestate text DEFAULT NULL,
                        retry_base_seconds integer DEFAULT NULL, retry_max_seconds integer DEFAULT NULL,
                        depends_on uuid[] DEFAULT NULL, on_parent_failure text DEFAULT NULL,
                        sequence_key text DEFAULT NULL, on_dead text DEFAULT NULL,
                        debounce jsonb DEFAULT NULL, throttle jsonb DEFAULT NULL, notify jsonb DEFAULT NULL,
                        tenant text DEFAULT NULL)
    RETURNS TABLE (job_id text, run_id text, created boolean, debounced boolean)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
    v_name     text    := enqueue.name;
    v_executor text    := enqueue.executor;
    v_payload  jsonb   := coalesce(enqueue.payload, '{}'::jsonb);
    v_priority integer := coalesce(enqueue.priority, 5);
    v_attempts integer := coalesce(enqueue.max_attempts, 3);
    v_timeout  integer := coalesce(enqueue.timeout_seconds, 300);
    v_queue    text    := coalesce(enqueue.queue, 'default');
    v_key      text    := enqueue.idempotency_key;
    v_ckey     text    := enqueue.concurrency_key;
    v_limit    integer := enqueue.max_concurrent;
    v_rbase    integer := enqueue.retry_base_seconds;
    v_rmax     integer := enqueue.retry_max_seconds;
    v_labels   jsonb   := coalesce(enqueue.labels, '{}'::jsonb);
    v_lkey     text;
    v_now      timestamptz := now();
    v_due      timestamptz := coalesce(enqueue.run_at, now());
    v_job      uuid    := forgeflow_uuid_v7();
    v_run      uuid    := forgeflow_uuid_v7();
    v_stored   uuid;
    v_old      jobs%ROWTYPE;
    v_trace    text    := lower(btrim(enqueue.traceparent));
    v_state    text    := nullif(btrim(enqueue.tracestate), '');
    v_parents  uuid[]  := enqueue.depends_on;
    v_policy   text    := enqueue.on_parent_failure;
    v_decided  text;
    v_seq      text    := enqueue.sequence_key;
    v_on_dead  text    := enqueue.on_dead;
    v_debounce jsonb   := forgeflow_debounce_checked(enqueue.debounce);
    v_throttle jsonb   := forgeflow_throttle_checked(enqueue.throttle);
    v_notify   jsonb   := forgeflow_notify_checked(enqueue.notify);
    v_into_job uuid;
    v_into_run uuid;
    v_tenant   text    := coalesce(enqueue.tenant, 'default');
    v_ms       bigint;
    v_silent   boolean := false;
BEGIN
    IF v_debounce IS NOT NULL THEN
        IF enqueue.run_at IS NOT NULL OR v_seq IS NOT NULL OR enqueue.depends_on IS NOT NULL THEN
            RAISE EXCEPTION 'debounce applies to one-off jobs due now and does not go with run_at, sequence_key or depends_on: leave one of them out'
                USING ERRCODE = '22023', COLUMN = 'debounce';
        END IF;
    END IF;
    IF v_seq IS NULL AND v_on_dead IS NOT NULL THEN
        RAISE EXCEPTION 'on_dead needs sequence_key: give the sequence the job joins, or leave on_dead out'
            USING ERRCODE = '22023', COLUMN = 'on_dead';
    END IF;
    IF v_seq IS NOT NULL THEN
        IF btrim(v_seq) = '' OR char_length(v_seq) > 200 OR v_seq ~ '[[:cntrl:]]' THEN
            RAISE EXCEPTION 'sequence_key must be 1 to 200 characters, not blank and without control characters, e.g. ''order-42'''
                USING ERRCODE = '22023', COLUMN = 'sequence_key';
        END IF;
        v_on_dead := coalesce(v_on_dead, 'block');
        IF v_on_dead NOT IN ('block', 'continue') THEN
            RAISE EXCEPTION 'on_dead must be ''block'' or ''continue'', was ''%''', left(v_on_dead, 60)
                USING ERRCODE = '22023', COLUMN = 'on_dead';
        END IF;
        IF enqueue.depends_on IS NOT NULL THEN
            RAISE EXCEPTION 'sequence_key cannot be combined with depends_on: a run waits either for its parents or for its turn in a sequence'
                USING ERRCODE = '22023', COLUMN = 'sequence_key';
        END IF;
    END IF;
    IF v_parents IS NULL AND v_policy IS NOT NULL THEN
        RAISE EXCEPTION 'on_parent_failure needs depends_on: give the parent job ids, or leave on_parent_failure out'
            USING ERRCODE = '22023', COLUMN = 'on_parent_failure';
    END IF;
    IF v_parents IS NOT NULL THEN
        IF cardinality(v_parents) NOT BETWEEN 1 AND 100 OR array_position(v_parents, NULL) IS NOT NULL THEN
            RAISE EXCEPTION 'depends_on must list 1 to 100 parent job ids, was %', coalesce(cardinality(v_parents), 0)
                USING ERRCODE = '22023', COLUMN = 'depends_on';
        END IF;
        IF (SELECT count(DISTINCT p) FROM unnest(v_parents) AS p) <> cardinality(v_parents) THEN
            RAISE EXCEPTION 'depends_on repeats a parent: list each parent once'
                USING ERRCODE = '22023', COLUMN = 'depends_on';
        END IF;
        v_policy := coalesce(v_policy, 'cancel');
        IF v_policy NOT IN ('cancel', 'run', 'wait') THEN
            RAISE EXCEPTION 'on_parent_failure must be ''cancel'', ''run'' or ''wait'', was ''%''', left(v_policy, 60)
                USING ERRCODE = '22023', COLUMN = 'on_parent_failure';
        END IF;
    END IF;
    -- W3C trace context of the caller (docs/API.md, "Traces"); the run's span continues its trace
    IF v_trace IS NOT NULL AND (v_trace !~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
                                OR v_trace LIKE 'ff-%' OR substr(v_trace, 4, 32) = repeat('0', 32)
                                OR substr(v_trace, 37, 16) = repeat('0', 16)) THEN
        RAISE EXCEPTION 'traceparent must be a W3C traceparent such as ''00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'', was ''%''',
            left(enqueue.traceparent, 80)
            USING ERRCODE = '22023', COLUMN = 'traceparent';
    END IF;
    IF v_state IS NOT NULL AND length(v_state) > 512 THEN
        RAISE EXCEPTION 'tracestate must be at most 512 characters (W3C: at most 32 list members), was %', length(v_state)
            USING ERRCODE = '22023', COLUMN = 'tracestate';
    END IF;
    IF v_trace IS NULL THEN
        v_state := NULL;
    END IF;
    IF v_name IS NULL OR btrim(v_name) = '' THEN
        RAISE EXCEPTION 'name is required and must not be blank: a short human-readable name such as ''nightly-report'''
            USING ERRCODE = '22023', COLUMN = 'name';
    END IF;
    IF char_length(v_name) > 200 THEN
        RAISE EXCEPTION 'name must be at most 200 characters, was %', char_length(v_name)
            USING ERRCODE = '22023', COLUMN = 'name';
    END IF;
    IF v_executor IS NULL OR btrim(v_executor) = '' THEN
        RAISE EXCEPTION 'executor is required and must not be blank: the executor that runs the job, e.g. ''shell'' or ''http'''
            USING ERRCODE = '22023', COLUMN = 'executor';
    END IF;
    IF char_length(v_executor) > 100 THEN
        RAISE EXCEPTION 'executor must be at most 100 characters, was %', char_length(v_executor)
            USING ERRCODE = '22023', COLUMN = 'executor';
    END IF;
    IF jsonb_typeof(v_payload) <> 'object' THEN
        RAISE EXCEPTION 'payload must be a JSON object such as ''{"command": "echo hi"}'', was %', jsonb_typeof(v_payload)
            USING ERRCODE = '22023', COLUMN = 'payload';
    END IF;
    IF jsonb_path_exists(v_payload, 'strict $.**{33}') THEN
        RAISE EXCEPTION 'payload nests deeper than 32 levels' USING ERRCODE = '22023', COLUMN = 'payload';
    END IF;
    -- JobDraft.MAX_PAYLOAD_BYTES, the API's limit (EnqueueFunctionIT keeps the two equal)
    IF octet_length(CAST(v_payload AS text)) > 1000000 THEN
        RAISE EXCEPTION 'payload must be at most 1000000 bytes of JSON, was %: keep large data elsewhere and pass its address',
            octet_length(CAST(v_payload AS text))
            USING ERRCODE = '22023', COLUMN = 'payload';
    END IF;
    IF enqueue.cron_expr IS NOT NULL THEN
        RAISE EXCEPTION 'cron_expr: recurring jobs are submitted over the API (POST /v1/jobs), where the cron expression is checked; enqueue() makes one-off and delayed jobs (leave cron_expr out, give run_at for a later time)'
            USING ERRCODE = '0A000', COLUMN = 'cron_expr';
    END IF;
    IF jsonb_typeof(v_labels) <> 'object' THEN
        RAISE EXCEPTION 'labels must be a JSON object of strings such as ''{"team": "billing"}'', was %', jsonb_typeof(v_labels)
            USING ERRCODE = '22023', COLUMN = 'labels';
    END IF;
    IF (SELECT count(*) FROM jsonb_object_keys(v_labels)) > 20 THEN
        RAISE EXCEPTION 'labels may hold at most 20 entries, had %: keep the ones you filter by',
            (SELECT count(*) FROM jsonb_object_keys(v_labels))
            USING ERRCODE = '22023', COLUMN = 'labels';
    END IF;
    FOR v_lkey IN SELECT k FROM jsonb_object_keys(v_labels) AS k ORDER BY k LOOP
        IF v_lkey !~ '^[a-z0-9_.-]{1,63}$' THEN
            RAISE EXCEPTION 'labels has a bad key ''%'': keys are 1 to 63 characters of a-z, 0-9, ''_'', ''.'' or ''-'', e.g. "team" or "app.tier"',
                left(v_lkey, 60)
                USING ERRCODE = '22023', COLUMN = 'labels';
        END IF;
        IF jsonb_typeof(v_labels -> v_lkey) <> 'string' THEN
            RAISE EXCEPTION 'labels.% must be a string, e.g. "billing", not %', v_lkey, jsonb_typeof(v_labels -> v_lkey)
                USING ERRCODE = '22023', COLUMN = 'labels.' || v_lkey;
        END IF;
        IF char_length(v_labels ->> v_lkey) > 200 THEN
            RAISE EXCEPTION 'labels.% must be at most 200 characters, was %', v_lkey, char_length(v_labels ->> v_lkey)
                USING ERRCODE = '22023', COLUMN = 'labels.' || v_lkey;
        END IF;
        IF (v_labels ->> v_lkey) ~ '[[:cntrl:]]' THEN
            RAISE EXCEPTION 'labels.% must not contain control characters (NUL, newlines, tabs): use plain text such as "billing"', v_lkey
                USING ERRCODE = '22023', COLUMN = 'labels.' || v_lkey;
        END IF;
    END LOOP;
    IF v_priority NOT BETWEEN 1 AND 9 THEN
        RAISE EXCEPTION 'priority must be between 1 and 9 (1 is the highest), was %', v_priority
            USING ERRCODE = '22023', COLUMN = 'priority';
    END IF;
    IF v_attempts NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'max_attempts must be between 1 and 100, was %', v_attempts
            USING ERRCODE = '22023', COLUMN = 'max_attempts';
    END IF;
    IF v_timeout NOT BETWEEN 1 AND 86400 THEN
        RAISE EXCEPTION 'timeout_seconds must be between 1 and 86400, was %', v_timeout
            USING ERRCODE = '22023', COLUMN = 'timeout_seconds';
    END IF;
    IF v_key IS NOT NULL AND char_length(v_key) NOT BETWEEN 1 AND 200 THEN
        RAISE EXCEPTION 'idempotency_key must be 1 to 200 characters, was %', char_length(v_key)
            USING ERRCODE = '22023', COLUMN = 'idempotency_key';
    END IF;
    IF strpos(v_key, chr(31)) > 0 THEN
        RAISE EXCEPTION 'idempotency_key must not contain the control character U+001F'
            USING ERRCODE = '22023', COLUMN = 'idempotency_key';
    END IF;
    IF v_tenant !~ '^[a-z0-9_.-]{1,63}$' THEN
        RAISE EXCEPTION 'tenant ''%'' is not a tenant name: use 1 to 63 lower-case letters, digits, ''_'', ''.'' or ''-'', e.g. ''acme''',
            translate(left(v_tenant, 70), chr(10) || chr(13) || chr(31), '???')
            USING ERRCODE = '22023', COLUMN = 'tenant';
    END IF;
    IF v_key LIKE 'notice:%' THEN
        RAISE EXCEPTION 'idempotency_key must not start with ''notice:'': that prefix is reserved for the notices ForgeFlow sends'
            USING ERRCODE = '22023', COLUMN = 'idempotency_key';
    END IF;
    IF v_queue !~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' THEN
        RAISE EXCEPTION 'queue must be 1 to 100 characters: letters, digits, ''.'', ''_'' and ''-'', starting with a letter or digit, e.g. ''billing'''
            USING ERRCODE = '22023', COLUMN = 'queue';
    END IF;
    IF v_ckey IS NOT NULL THEN
        IF v_ckey ~ '[[:cntrl:]]' THEN
            RAISE EXCEPTION 'concurrency_key must not contain control characters (newlines, tabs, escapes): use a plain name such as ''billing'''
                USING ERRCODE = '22023', COLUMN = 'concurrency_key';
        END IF;
        IF btrim(v_ckey) = '' OR char_length(v_ckey) > 200 THEN
            RAISE EXCEPTION 'concurrency_key must be 1 to 200 characters and not blank, e.g. ''billing'''
                USING ERRCODE = '22023', COLUMN = 'concurrency_key';
        END IF;
        IF v_ckey LIKE 'job:%' THEN
            RAISE EXCEPTION 'concurrency_key must not start with ''job:'': that prefix is reserved for the key of a job that gives max_concurrent alone'
                USING ERRCODE = '22023', COLUMN = 'concurrency_key';
        END IF;
        IF v_limit IS NULL THEN
            RAISE EXCEPTION 'max_concurrent is required with concurrency_key: how many runs sharing the key may run at once across the cluster, e.g. 2'
                USING ERRCODE = '22023', COLUMN = 'max_concurrent';
        END IF;
    END IF;
    IF v_limit IS NOT NULL AND v_limit NOT BETWEEN 1 AND 10000 THEN
        RAISE EXCEPTION 'max_concurrent must be between 1 and 10000, was %', v_limit
            USING ERRCODE = '22023', COLUMN = 'max_concurrent';
    END IF;
    IF v_rbase IS NOT NULL AND v_rbase NOT BETWEEN 1 AND 86400 THEN
        RAISE EXCEPTION 'retry.base_seconds must be between 1 and 86400, was %', v_rbase
            USING ERRCODE = '22023', COLUMN = 'retry.base_seconds';
    END IF;
    IF v_rmax IS NOT NULL AND v_rmax NOT BETWEEN 1 AND 86400 THEN
        RAISE EXCEPTION 'retry.max_seconds must be between 1 and 86400, was %', v_rmax
            USING ERRCODE = '22023', COLUMN = 'retry.max_seconds';
    END IF;
    IF v_rbase > v_rmax THEN
        RAISE EXCEPTION 'retry.base_seconds (%) must be at most retry.max_seconds (%): the first retry waits up to base_seconds, later ones double up to max_seconds', v_rbase, v_rmax
            USING ERRCODE = '22023', COLUMN = 'retry.base_seconds';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM executors e WHERE e.name = v_executor) THEN
        RAISE EXCEPTION 'executor ''%'' is not known to this cluster: use one of %', left(v_executor, 60),
            coalesce((SELECT string_agg(e.name, ', ' ORDER BY e.name) FROM executors e),
                     'none yet (no node has started on this database)')
            USING ERRCODE = '22023', COLUMN = 'executor';
    END IF;
    PERFORM forgeflow_check_payload(v_executor, v_payload);
    IF v_tenant <> 'default' THEN
        -- every key in its stored form (Tenants.scopedKey): the same key in another tenant is another key
        v_key := forgeflow_scoped_key(v_tenant, v_key);
        v_ckey := forgeflow_scoped_key(v_tenant, v_ckey);
        v_seq := forgeflow_scoped_key(v_tenant, v_seq);
        IF v_debounce IS NOT NULL THEN
            v_debounce := jsonb_set(v_debounce, '{key}', to_jsonb(forgeflow_scoped_key(v_tenant, v_debounce ->> 'key')));
        END IF;
        IF v_throttle IS NOT NULL THEN
            v_throttle := jsonb_set(v_throttle, '{key}', to_jsonb(forgeflow_scoped_key(v_tenant, v_throttle ->> 'key')));
        END IF;
    END IF;
    IF v_debounce IS NOT NULL THEN
        -- a run of the key may absorb this submission (forgeflow_flow.sql); the key's lock is held until commit
        SELECT a.job_id, a.run_id INTO v_into_job, v_into_run
        FROM forgeflow_debounce_absorb(v_debounce, v_executor, v_payload) AS a;
        IF v_into_run IS NOT NULL THEN
            RETURN QUERY SELECT v_into_job::text, v_into_run::text, false, true;
            RETURN;
        END IF;
    END IF;

    INSERT INTO jobs (id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts,
                      timeout_seconds, catch_up, idempotency_key, status, next_run_at, created_at, updated_at, queue,
                      concurrency_key, max_concurrent, overlap, submitted_via, traceparent, tracestate,
                      retry_base_seconds, retry_max_seconds, labels, on_parent_failure, sequence_key, sequence_on_dead,
                      debounce, throttle, notify, tenant)
    VALUES (v_job, v_name, v_executor, v_payload, NULL, enqueue.run_at, 'UTC', v_priority, v_attempts, v_timeout,
            'skip', v_key, 'active', v_due, v_now, v_now, v_queue, v_ckey, v_limit, 'allow', 'sql', v_trace, v_state,
            v_rbase, v_rmax, v_labels, CASE WHEN v_parents IS NULL THEN NULL ELSE v_policy END, v_seq, v_on_dead,
            v_debounce, v_throttle, v_notify, v_tenant)
    ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING id INTO v_stored;

    IF v_stored IS NULL THEN
        -- the key is taken (by a committed job: ON CONFLICT waited for its inserter): the same request gets its ids
        SELECT * INTO v_old FROM jobs j WHERE j.idempotency_key = v_key;
        IF v_old.name IS DISTINCT FROM v_name OR v_old.executor IS DISTINCT FROM v_executor
           OR v_old.payload IS DISTINCT FROM v_payload OR v_old.cron_expr IS NOT NULL
           OR v_old.run_at IS DISTINCT FROM enqueue.run_at OR v_old.timezone <> 'UTC'
           OR v_old.priority <> v_priority OR v_old.max_attempts <> v_attempts
           OR v_old.timeout_seconds <> v_timeout OR v_old.catch_up <> 'skip' OR v_old.queue <> v_queue
           OR v_old.concurrency_key IS DISTINCT FROM v_ckey OR v_old.max_concurrent IS DISTINCT FROM v_limit
           OR v_old.overlap <> 'allow' OR v_old.retry_base_seconds IS DISTINCT FROM v_rbase
           OR v_old.retry_max_seconds IS DISTINCT FROM v_rmax OR v_old.labels <> v_labels
           OR v_old.sequence_key IS DISTINCT FROM v_seq OR v_old.sequence_on_dead IS DISTINCT FROM v_on_dead
           OR v_old.debounce IS DISTINCT FROM v_debounce OR v_old.throttle IS DISTINCT FROM v_throttle
           OR v_old.notify IS DISTINCT FROM v_notify THEN
            RAISE EXCEPTION 'idempotency_key ''%'' was already used for a different job (%): send exactly the same arguments to get that job back, or use a new key',
                enqueue.idempotency_key, v_old.id
                USING ERRCODE = '23505', COLUMN = 'idempotency_key', CONSTRAINT = 'jobs_idempotency_key_unique';
        END IF;
        RETURN QUERY SELECT v_old.id::text, (SELECT r.id::text FROM runs r WHERE r.job_id = v_old.id ORDER BY r.id LIMIT 1),
                            false, false;
        RETURN;
    END IF;

    INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, payload,
                      timeout_seconds, created_at, queue, concurrency_key, max_concurrent, traceparent, tracestate,
                      trace_origin, retry_base_seconds, retry_max_seconds, labels, sequence_key, sequence_on_dead,
                      throttle_key, throttle_count, throttle_per_seconds, tenant)
    VALUES (v_run, v_job, CASE WHEN v_parents IS NULL THEN 'pending' ELSE 'waiting' END, v_priority, v_due, 0,
            v_attempts, v_executor, v_payload, v_timeout, v_now,
            v_queue, CASE WHEN v_limit IS NULL THEN NULL ELSE coalesce(v_ckey, 'job:' || v_job) END, v_limit,
            forgeflow_trace_child(v_trace), v_state, v_trace, v_rbase, v_rmax, v_labels, v_seq, v_on_dead,
            v_throttle ->> 'key', (v_throttle ->> 'count')::integer, (v_throttle ->> 'per_seconds')::integer, v_tenant)
    RETURNING status INTO v_decided;
    IF v_debounce IS NOT NULL THEN
        PERFORM forgeflow_debounce_start(v_run);
        SELECT r.scheduled_for INTO v_due FROM runs r WHERE r.id = v_run;
    END IF;

    -- no NOTIFY while a node watches for SQL enqueues (forgeflow_sql_wakeups.sql): then the lock, the promise again
    v_ms := floor(extract(epoch FROM clock_timestamp()) * 1000);
    IF pg_sequence_last_value('forgeflow_sql_watch') > v_ms THEN
        PERFORM pg_advisory_xact_lock_shared(1179014001, 1);
        v_ms := floor(extract(epoch FROM clock_timestamp()) * 1000);
        v_silent := coalesce(pg_sequence_last_value('forgeflow_sql_watch') > v_ms, false);
        IF v_silent THEN
            PERFORM nextval('forgeflow_sql_silent');
        END IF;
    END IF;

    IF v_decided = 'waiting' AND v_parents IS NULL THEN
        -- behind the head of its sequence (forgeflow_sequences.sql): it becomes pending, and due, in its turn
        IF NOT v_silent THEN
            PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_job || ',waiting,0,'
                              || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        END IF;
        RETURN QUERY SELECT v_job::text, v_run::text, true, false;
        RETURN;
    END IF;

    IF v_parents IS NOT NULL THEN
        -- the parents decide the waiting run (at once when they have ended; that notifies as it moves the run)
        IF NOT v_silent THEN
            PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_job || ',waiting,0,'
                              || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        END IF;
        v_decided := forgeflow_link_parents(v_job, v_parents);
        RETURN QUERY SELECT v_job::text, v_run::text, true, false;
        RETURN;
    END IF;

    -- both are delivered at commit (PostgresRunEvents' and PostgresWorkSignal's channels), neither on a rollback;
    -- the wake-up says 'sql': a node that hears many of them starts watching (SqlEnqueueWatch)
    IF NOT v_silent THEN
        PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_job || ',pending,0,'
                          || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        IF v_due <= v_now THEN
            PERFORM pg_notify('forgeflow_due', 'sql');
        END IF;
    END IF;
    RETURN QUERY SELECT v_job::text, v_run::text, true, false;
END
$$;
--rollback DROP FUNCTION enqueue(text, text, jsonb, timestamptz, integer, integer, integer, text, text, text, jsonb, integer, text, text, text, integer, integer, uuid[], text, text, text, jsonb, jsonb, jsonb, text);

--changeset forgeflow:function-check-payload splitStatements:false runOnChange:true
-- forgeflow_check_payload(): the payload rules of the built-in executors (shell, http, noop, and java: an embedded
-- worker's handler) as the Java executors check them at submission; any other executor's payload is checked by its
-- Java code when a worker claims the run (an invalid one fails the attempt with the executor's message). A java job
-- for a handler no live worker has is accepted: it waits. Reads nothing, locks nothing.
CREATE OR REPLACE FUNCTION forgeflow_check_payload(p_executor text, p_payload jsonb) RETURNS void
    LANGUAGE plpgsql IMMUTABLE SET search_path FROM CURRENT AS $$
DECLARE
    v_known  text[];
    v_key    text;
    v_value  jsonb;
    v_method text := 'POST';
    v_url    text;
BEGIN
    v_known := CASE p_executor WHEN 'shell' THEN ARRAY['command']
                               WHEN 'http' THEN ARRAY['body', 'expected_status', 'headers', 'method', 'url']
                               WHEN 'noop' THEN ARRAY['sleep_ms']
                               WHEN 'java' THEN ARRAY['args', 'handler'] END;
    IF v_known IS NULL THEN
        RETURN;
    END IF;
    FOR v_key IN SELECT k FROM jsonb_object_keys(p_payload) AS k ORDER BY k LOOP
        IF v_key <> ALL (v_known) THEN
            RAISE EXCEPTION 'payload.% is not a field of the % executor (misspelt?); its fields are %', v_key,
                p_executor, array_to_string(v_known, ', ')
                USING ERRCODE = '22023', COLUMN = 'payload.' || v_key;
        END IF;
    END LOOP;
    IF p_executor = 'shell' THEN
        v_value := p_payload -> 'command';
        IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
            RAISE EXCEPTION 'payload.command is required by the shell executor, e.g. {"command": "./backup.sh --full"}'
                USING ERRCODE = '22023', COLUMN = 'payload.command';
        ELSIF jsonb_typeof(v_value) <> 'string' THEN
            RAISE EXCEPTION 'payload.command must be a string, e.g. "./backup.sh --full"; got %', jsonb_typeof(v_value)
                USING ERRCODE = '22023', COLUMN = 'payload.command';
        ELSIF btrim(v_value #>> '{}', E' \t\n\r\f\v') = '' THEN
            RAISE EXCEPTION 'payload.command must not be blank, e.g. "./backup.sh --full"'
                USING ERRCODE = '22023', COLUMN = 'payload.command';
        ELSIF octet_length(v_value #>> '{}') > 131071 THEN
            RAISE EXCEPTION 'payload.command must be at most 131071 bytes; put a longer script in a file and run that'
                USING ERRCODE = '22023', COLUMN = 'payload.command';
        END IF;
    ELSIF p_executor = 'noop' THEN
        v_value := p_payload -> 'sleep_ms';
        IF v_value IS NOT NULL AND jsonb_typeof(v_value) <> 'null'
           AND (jsonb_typeof(v_value) <> 'number' OR v_value::text !~ '^[0-9]+$' OR v_value::numeric > 60000) THEN
            RAISE EXCEPTION 'payload.sleep_ms must be a whole number from 0 to 60000'
                USING ERRCODE = '22023', COLUMN = 'payload.sleep_ms';
        END IF;
    ELSIF p_executor = 'java' THEN
        v_value := p_payload -> 'handler';
        IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
            RAISE EXCEPTION 'payload.handler is required by the java executor: the name an embedded worker registered, e.g. {"handler": "send-receipt", "args": {"order_id": 42}}'
                USING ERRCODE = '22023', COLUMN = 'payload.handler';
        ELSIF jsonb_typeof(v_value) <> 'string' THEN
            RAISE EXCEPTION 'payload.handler must be a string, e.g. "send-receipt"; got %', jsonb_typeof(v_value)
                USING ERRCODE = '22023', COLUMN = 'payload.handler';
        ELSIF (v_value #>> '{}') !~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' THEN
            RAISE EXCEPTION 'payload.handler must be 1 to 100 letters, digits, ''.'', ''_'' or ''-'', starting with a letter or digit, e.g. "send-receipt"'
                USING ERRCODE = '22023', COLUMN = 'payload.handler';
        END IF;
        v_value := p_payload -> 'args';
        IF v_value IS NOT NULL AND jsonb_typeof(v_value) NOT IN ('object', 'null') THEN
            RAISE EXCEPTION 'payload.args must be an object (the handler reads it as ctx.payload()), e.g. {"order_id": 42}; got %', jsonb_typeof(v_value)
                USING ERRCODE = '22023', COLUMN = 'payload.args';
        END IF;
    ELSE
        v_value := p_payload -> 'url';
        IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
            RAISE EXCEPTION 'payload.url is required by the http executor, e.g. {"url": "https://example.com/hooks/nightly"}'
                USING ERRCODE = '22023', COLUMN = 'payload.url';
        ELSIF jsonb_typeof(v_value) <> 'string' THEN
            RAISE EXCEPTION 'payload.url must be a string, e.g. "https://example.com/hooks/nightly"; got %', jsonb_typeof(v_value)
                USING ERRCODE = '22023', COLUMN = 'payload.url';
        END IF;
        v_url := btrim(v_value #>> '{}');
        IF v_url !~* '^https?://[^/?#[:space:]@]*@?[^/?#[:space:]]+([/?#][^[:space:]]*)?$' THEN
            RAISE EXCEPTION 'payload.url must be an absolute URL starting with http:// or https://, e.g. https://example.com/hooks/nightly'
                USING ERRCODE = '22023', COLUMN = 'payload.url';
        END IF;
        v_value := p_payload -> 'method';
        IF v_value IS NOT NULL AND jsonb_typeof(v_value) <> 'null' THEN
            IF jsonb_typeof(v_value) <> 'string' THEN
                RAISE EXCEPTION 'payload.method must be a string; got %', jsonb_typeof(v_value)
                    USING ERRCODE = '22023', COLUMN = 'payload.method';
            END IF;
            v_method := upper(btrim(v_value #>> '{}'));
            IF v_method NOT IN ('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD') THEN
                RAISE EXCEPTION 'payload.method must be one of GET, POST, PUT, PATCH, DELETE, HEAD (POST when left out)'
                    USING ERRCODE = '22023', COLUMN = 'payload.method';
            END IF;
        END IF;
        v_value := p_payload -> 'headers';
        IF v_value IS NOT NULL AND jsonb_typeof(v_value) <> 'null' THEN
            IF jsonb_typeof(v_value) <> 'object' THEN
                RAISE EXCEPTION 'payload.headers must be an object; got %', jsonb_typeof(v_value)
                    USING ERRCODE = '22023', COLUMN = 'payload.headers';
            END IF;
            FOR v_key IN SELECT k FROM jsonb_object_keys(v_value) AS k ORDER BY k LOOP
                IF jsonb_typeof(v_value -> v_key) <> 'string' THEN
                    RAISE EXCEPTION 'payload.headers must map names to strings; the value of % is %', v_key,
                        jsonb_typeof(v_value -> v_key)
                        USING ERRCODE = '22023', COLUMN = 'payload.headers';
                END IF;
                IF v_key !~ '^[!#$%&''*+.^_`|~0-9A-Za-z-]+$' THEN
                    RAISE EXCEPTION 'payload.headers has an invalid header name: use letters, digits and - only'
                        USING ERRCODE = '22023', COLUMN = 'payload.headers';
                END IF;
                IF (v_value ->> v_key) ~ '[^\t\x20-\x7e]' THEN
                    RAISE EXCEPTION 'payload.headers: the value of % has characters not allowed in an HTTP header (control characters or non-ASCII)', v_key
                        USING ERRCODE = '22023', COLUMN = 'payload.headers';
                END IF;
            END LOOP;
        END IF;
        IF p_payload -> 'body' IS NOT NULL AND jsonb_typeof(p_payload -> 'body') <> 'null'
           AND v_method IN ('GET', 'HEAD') THEN
            RAISE EXCEPTION 'payload.body cannot be sent with %; drop the body or use POST, PUT, PATCH or DELETE', v_method
                USING ERRCODE = '22023', COLUMN = 'payload.body';
        END IF;
        v_value := p_payload -> 'expected_status';
        IF v_value IS NOT NULL AND jsonb_typeof(v_value) <> 'null' THEN
            IF jsonb_typeof(v_value) <> 'array' THEN
                RAISE EXCEPTION 'payload.expected_status must be an array; got %', jsonb_typeof(v_value)
                    USING ERRCODE = '22023', COLUMN = 'payload.expected_status';
            END IF;
            IF jsonb_array_length(v_value) NOT BETWEEN 1 AND 500 THEN
                RAISE EXCEPTION 'payload.expected_status must list 1 to 500 statuses, e.g. [200, 404]; leave it out to accept any 2xx'
                    USING ERRCODE = '22023', COLUMN = 'payload.expected_status';
            END IF;
            IF EXISTS (SELECT 1 FROM jsonb_array_elements(v_value) AS s(v)
                       WHERE jsonb_typeof(s.v) <> 'number' OR s.v::text !~ '^[0-9]+$'
                          OR s.v::numeric NOT BETWEEN 100 AND 599) THEN
                RAISE EXCEPTION 'payload.expected_status must be a whole number from 100 to 599'
                    USING ERRCODE = '22023', COLUMN = 'payload.expected_status';
            END IF;
        END IF;
    END IF;
END
$$;
--rollback DROP FUNCTION forgeflow_check_payload(text, jsonb);
