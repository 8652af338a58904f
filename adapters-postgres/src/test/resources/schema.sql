CREATE SCHEMA forgeflow;

CREATE FUNCTION forgeflow.enqueue(name text, executor text, payload jsonb DEFAULT '{}'::jsonb, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, priority integer DEFAULT 5, max_attempts integer DEFAULT 3, timeout_seconds integer DEFAULT 300, queue text DEFAULT 'default'::text, idempotency_key text DEFAULT NULL::text, concurrency_key text DEFAULT NULL::text, labels jsonb DEFAULT NULL::jsonb, max_concurrent integer DEFAULT NULL::integer, cron_expr text DEFAULT NULL::text, traceparent text DEFAULT NULL::text, tracestate text DEFAULT NULL::text, retry_base_seconds integer DEFAULT NULL::integer, retry_max_seconds integer DEFAULT NULL::integer, depends_on uuid[] DEFAULT NULL::uuid[], on_parent_failure text DEFAULT NULL::text, sequence_key text DEFAULT NULL::text, on_dead text DEFAULT NULL::text, debounce jsonb DEFAULT NULL::jsonb, throttle jsonb DEFAULT NULL::jsonb, notify jsonb DEFAULT NULL::jsonb, tenant text DEFAULT NULL::text) RETURNS TABLE(job_id text, run_id text, created boolean, debounced boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $_$
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

        IF NOT v_silent THEN
            PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_job || ',waiting,0,'
                              || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        END IF;
        RETURN QUERY SELECT v_job::text, v_run::text, true, false;
        RETURN;
    END IF;

    IF v_parents IS NOT NULL THEN

        IF NOT v_silent THEN
            PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_job || ',waiting,0,'
                              || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        END IF;
        v_decided := forgeflow_link_parents(v_job, v_parents);
        RETURN QUERY SELECT v_job::text, v_run::text, true, false;
        RETURN;
    END IF;

    IF NOT v_silent THEN
        PERFORM pg_notify('forgeflow_runs', v_run || ',' || v_job || ',pending,0,'
                          || floor(extract(epoch FROM v_now) * 1000)::bigint || ',');
        IF v_due <= v_now THEN
            PERFORM pg_notify('forgeflow_due', 'sql');
        END IF;
    END IF;
    RETURN QUERY SELECT v_job::text, v_run::text, true, false;
END
$_$;

CREATE FUNCTION forgeflow.forgeflow_acknowledge(p_ids uuid[], p_workers text[], p_attempts integer[], p_next text[], p_delays bigint[], p_outcomes text[], p_outputs text[], p_errors text[], p_now timestamp with time zone) RETURNS TABLE(id uuid, worker_id text, attempt integer, job_id uuid, status text)
    LANGUAGE sql
    AS $$
SELECT * FROM forgeflow_end_attempts(p_ids, p_workers, p_attempts, p_next, p_delays, p_outcomes, p_outputs, p_errors,
                                     p_now)
$$;

CREATE FUNCTION forgeflow.forgeflow_analyze_history(p_table text) RETURNS void
    LANGUAGE plpgsql
    AS $_$
BEGIN
    IF p_table !~ '^(run|attempt)_history_p[0-9]{8}$' THEN
        RAISE EXCEPTION 'not a history partition: %', p_table USING ERRCODE = '22023';
    END IF;
    EXECUTE format('ANALYZE %I', p_table);
END
$_$;

CREATE FUNCTION forgeflow.forgeflow_batch_payload(p_executor text, p_payload jsonb, p_batch uuid, p_succeeded integer, p_dead integer, p_cancelled integer) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    AS $$
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
        RETURN p_payload;
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

CREATE FUNCTION forgeflow.forgeflow_check_payload(p_executor text, p_payload jsonb) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $_$
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
$_$;

CREATE TABLE forgeflow.runs (
    id uuid NOT NULL,
    job_id uuid NOT NULL,
    status text NOT NULL,
    priority smallint NOT NULL,
    scheduled_for timestamp with time zone NOT NULL,
    fired_for timestamp with time zone,
    attempt integer DEFAULT 0 NOT NULL,
    max_attempts integer NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    worker_id text,
    lease_expires_at timestamp with time zone,
    output text,
    error text,
    executor text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    timeout_seconds integer NOT NULL,
    cancel_requested boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    concurrency_key text,
    max_concurrent integer,
    unique_key text,
    retry_base_seconds integer,
    retry_max_seconds integer,
    labels jsonb DEFAULT '{}'::jsonb NOT NULL,
    traceparent text,
    tracestate text,
    trace_origin text,
    has_children boolean DEFAULT false NOT NULL,
    worker_instance text,
    backfill_id uuid,
    snoozes integer DEFAULT 0 NOT NULL,
    sequence_key text,
    sequence_on_dead text,
    sequence_pos bigint,
    throttle_key text,
    throttle_count integer,
    throttle_per_seconds integer,
    debounce_key text,
    debounce_until timestamp with time zone,
    debounced integer DEFAULT 0 NOT NULL,
    tenant text DEFAULT 'default'::text NOT NULL
);

CREATE FUNCTION forgeflow.forgeflow_claim(p_worker text, p_executors text[], p_include text[], p_exclude text[], p_limit integer, p_lease_ms bigint, p_now timestamp with time zone, p_after_priority integer, p_after_scheduled timestamp with time zone, p_after_id uuid) RETURNS SETOF forgeflow.runs
    LANGUAGE plpgsql
    AS $$
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

    SELECT ended_at IS NOT NULL INTO v_ended FROM worker_leases WHERE instance = p_worker;
    IF NOT FOUND THEN
        INSERT INTO worker_leases (instance, worker_id, started_at, expires_at, lease_ms)
        VALUES (p_worker, v_label, v_now, v_now + p_lease_ms * interval '1 millisecond', p_lease_ms)
        ON CONFLICT (instance) DO NOTHING;
    ELSIF v_ended THEN
        RETURN;
    END IF;

    SELECT tenant INTO v_first FROM runs WHERE status = 'pending' ORDER BY tenant DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT tenant INTO v_second FROM runs WHERE status = 'pending' AND tenant < v_first ORDER BY tenant DESC LIMIT 1;
    IF v_second IS NULL THEN

        PERFORM 1 FROM tenants WHERE name = v_first AND (max_running IS NOT NULL OR rate_count IS NOT NULL);
        IF NOT FOUND THEN
            RETURN QUERY SELECT * FROM forgeflow_claim_lane(p_worker, v_label, v_first, p_executors, p_include,
                p_exclude, p_limit, p_lease_ms, p_now, p_after_priority, p_after_scheduled, p_after_id);
            RETURN;
        END IF;
        v_names := ARRAY[v_first];
    ELSE

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

    PERFORM 1 FROM tenants
    WHERE name = ANY (v_names) AND (max_running IS NOT NULL OR rate_count IS NOT NULL)
    ORDER BY name FOR UPDATE;
    IF cardinality(v_names) > 1 THEN
        SELECT max(s.pass) - PASS_SLACK INTO v_floor FROM tenant_shares s WHERE s.tenant = ANY (v_names);
    END IF;
    v_floor := greatest(coalesce(v_floor, 0), 0);
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

    INSERT INTO tenant_starts (tenant, started_at)
    SELECT x.name, v_now FROM unnest(v_names, v_taken, v_rated) AS x (name, taken, rated)
    CROSS JOIN LATERAL generate_series(1, x.taken)
    WHERE x.rated AND x.taken > 0;

    INSERT INTO tenant_shares AS s (tenant, pass)
    SELECT x.name, v_floor + x.taken::double precision / x.weight
    FROM unnest(v_names, v_taken, v_weights) AS x (name, taken, weight)
    WHERE x.taken > 0
    ORDER BY x.name
    ON CONFLICT (tenant) DO UPDATE SET pass = greatest(s.pass, v_floor) + (EXCLUDED.pass - v_floor);
END
$$;

CREATE FUNCTION forgeflow.forgeflow_claim_key(p_executor text, p_payload jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE WHEN p_executor = 'java' THEN 'java:' || coalesce(p_payload ->> 'handler', '') ELSE p_executor END
$$;

CREATE FUNCTION forgeflow.forgeflow_claim_lane(p_worker text, p_label text, p_tenant text, p_executors text[], p_include text[], p_exclude text[], p_limit integer, p_lease_ms bigint, p_now timestamp with time zone, p_after_priority integer, p_after_scheduled timestamp with time zone, p_after_id uuid) RETURNS SETOF forgeflow.runs
    LANGUAGE plpgsql
    AS $_$
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

    v_has_guarded := ((SELECT priority FROM runs WHERE status = 'pending' AND concurrency_key IS NOT NULL
                       ORDER BY priority, scheduled_for, id LIMIT 1) IS NOT NULL
                      AND EXISTS (SELECT 1 FROM generate_series(1, 9) AS p (p)
                                  CROSS JOIN LATERAL (SELECT 1 FROM runs
                                                      WHERE status = 'pending' AND concurrency_key IS NOT NULL
                                                        AND priority = p.p AND scheduled_for <= v_now
                                                      ORDER BY scheduled_for, id LIMIT 1) k))

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

        v_open_exists := v_open_exists OR (SELECT queue FROM runs WHERE status = 'pending' AND tenant = p_tenant
                                           AND queue > v_lo_q ORDER BY queue LIMIT 1) IS NOT NULL;
    END IF;

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
            LOOP
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
                                  AND id <> ALL (v_open)
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
            LOOP
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
                              AND id <> ALL (v_open)
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

            DELETE FROM throttle_starts s WHERE s.throttle_key = ANY (v_c_tkeys) AND s.expires_at <= v_now;
            SELECT array_agg(x), array_agg(t.n), array_agg(t.first_free), array_agg(0)
            INTO v_t_names, v_t_used, v_t_free, v_t_late
            FROM unnest(v_c_tkeys) AS x
            CROSS JOIN LATERAL (SELECT count(*)::integer AS n, min(s.expires_at) AS first_free
                                FROM throttle_starts s WHERE s.throttle_key = x) t;
        END IF;

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
            CONTINUE WHEN v_qi IS NULL AND v_row.queue = ANY (v_guarded);
            CONTINUE WHEN v_row.concurrency_key IS NOT NULL AND v_ki IS NULL;
            CONTINUE WHEN v_qi IS NOT NULL AND v_q_cap[v_qi] <= 0;
            CONTINUE WHEN v_ki IS NOT NULL AND v_k_cap[v_ki] <= 0;
            v_ti := CASE WHEN v_row.throttle_key IS NULL THEN NULL ELSE array_position(v_t_names, v_row.throttle_key) END;
            CONTINUE WHEN v_row.throttle_key IS NOT NULL AND v_ti IS NULL;
            IF v_ti IS NOT NULL AND v_t_used[v_ti] >= v_row.throttle_count THEN

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
    END IF;

    EXECUTE $chosen$
        SELECT coalesce(array_agg(x.id), '{}')
        FROM (SELECT id FROM runs WHERE id = ANY ($1) ORDER BY priority, scheduled_for, id LIMIT $2) x$chosen$
        INTO v_chosen
        USING v_open || v_ids, p_limit;
    IF cardinality(v_chosen) = 0 THEN
        RETURN;
    END IF;

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
$_$;

CREATE FUNCTION forgeflow.forgeflow_complete_batches(p_limit integer) RETURNS SETOF uuid
    LANGUAGE plpgsql
    AS $$
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

CREATE FUNCTION forgeflow.forgeflow_debounce_absorb(p_debounce jsonb, p_executor text, p_payload jsonb) RETURNS TABLE(job_id uuid, run_id uuid)
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_key    text := p_debounce ->> 'key';
    v_period interval := (p_debounce ->> 'period_seconds')::integer * interval '1 second';
    v_now    timestamptz := now();
    v_run    uuid;
    v_job    uuid;
    v_until  timestamptz;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'debounce needs a READ COMMITTED transaction (this one is %): submit the job from one, or leave debounce out',
            current_setting('transaction_isolation')
            USING ERRCODE = '0A000', COLUMN = 'debounce';
    END IF;
    PERFORM pg_advisory_xact_lock(20423, hashtext(v_key));
    IF p_debounce ->> 'edge' = 'leading' THEN
        SELECT r.id, r.job_id INTO v_run, v_job FROM runs r
        WHERE r.debounce_key = v_key AND r.executor = p_executor AND r.debounce_until > v_now
        ORDER BY r.id DESC
        LIMIT 1;
        IF v_run IS NOT NULL THEN
            RETURN QUERY SELECT v_job, v_run;
        END IF;
        RETURN;
    END IF;
    SELECT r.id, r.job_id, r.debounce_until INTO v_run, v_job, v_until FROM runs r
    WHERE r.debounce_key = v_key AND r.executor = p_executor AND r.status = 'pending' AND r.attempt = 0
    ORDER BY r.id DESC
    LIMIT 1
    FOR UPDATE;
    IF v_run IS NULL OR v_until <= v_now THEN
        RETURN;
    END IF;
    UPDATE runs r SET payload = p_payload, scheduled_for = least(v_now + v_period, v_until),
                      debounced = r.debounced + 1
    WHERE r.id = v_run;
    UPDATE jobs j SET payload = p_payload, next_run_at = least(v_now + v_period, v_until), updated_at = v_now
    WHERE j.id = v_job;
    RETURN QUERY SELECT v_job, v_run;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_debounce_checked(p jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    v_key    text;
    v_period integer;
    v_wait   integer;
    v_edge   text;
    v_part   text;
BEGIN
    IF p IS NULL OR jsonb_typeof(p) = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p) <> 'object' THEN
        RAISE EXCEPTION 'debounce must be a JSON object such as ''{"key": "user-42", "period_seconds": 30}'', was %', jsonb_typeof(p)
            USING ERRCODE = '22023', COLUMN = 'debounce';
    END IF;
    FOR v_part IN SELECT k FROM jsonb_object_keys(p) AS k ORDER BY k LOOP
        IF v_part NOT IN ('key', 'period_seconds', 'max_wait_seconds', 'edge') THEN
            RAISE EXCEPTION 'unknown field ''debounce.%'': debounce has key, period_seconds, max_wait_seconds and edge', left(v_part, 60)
                USING ERRCODE = '22023', COLUMN = 'debounce.' || left(v_part, 60);
        END IF;
    END LOOP;
    v_key := forgeflow_flow_key(p, 'debounce', '''user-42''');
    v_period := forgeflow_flow_int(p, 'debounce', 'period_seconds', 1, 86400, true);
    v_edge := coalesce(p ->> 'edge', 'trailing');
    IF jsonb_typeof(p -> 'edge') NOT IN ('string', 'null') OR v_edge NOT IN ('trailing', 'leading') THEN
        RAISE EXCEPTION 'debounce.edge must be ''trailing'' (one run with the last payload after the burst) or ''leading'' (the first runs at once, the rest within the period join it), was %', left((p -> 'edge')::text, 60)
            USING ERRCODE = '22023', COLUMN = 'debounce.edge';
    END IF;
    IF v_edge = 'leading' THEN
        IF p ? 'max_wait_seconds' AND jsonb_typeof(p -> 'max_wait_seconds') <> 'null' THEN
            RAISE EXCEPTION 'debounce.max_wait_seconds applies to the trailing edge only (a leading run starts at once): leave it out'
                USING ERRCODE = '22023', COLUMN = 'debounce.max_wait_seconds';
        END IF;
        RETURN jsonb_build_object('key', v_key, 'period_seconds', v_period, 'edge', v_edge);
    END IF;
    v_wait := coalesce(forgeflow_flow_int(p, 'debounce', 'max_wait_seconds', v_period, 604800, false),
                       least(v_period * 10, 604800));
    RETURN jsonb_build_object('key', v_key, 'period_seconds', v_period, 'max_wait_seconds', v_wait, 'edge', v_edge);
END
$$;

CREATE FUNCTION forgeflow.forgeflow_debounce_start(p_run uuid) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_now timestamptz := now();
BEGIN
    UPDATE runs r
    SET debounce_key = j.debounce ->> 'key',
        debounce_until = v_now + CASE WHEN j.debounce ->> 'edge' = 'leading'
                                      THEN (j.debounce ->> 'period_seconds')::integer
                                      ELSE (j.debounce ->> 'max_wait_seconds')::integer END * interval '1 second',
        scheduled_for = CASE WHEN j.debounce ->> 'edge' = 'leading' THEN r.scheduled_for
                             ELSE v_now + (j.debounce ->> 'period_seconds')::integer * interval '1 second' END
    FROM jobs j
    WHERE r.id = p_run AND j.id = r.job_id AND j.debounce IS NOT NULL;
    UPDATE jobs j SET next_run_at = r.scheduled_for
    FROM runs r
    WHERE r.id = p_run AND j.id = r.job_id AND j.debounce ->> 'edge' = 'trailing';
END
$$;

CREATE FUNCTION forgeflow.forgeflow_drop_history_day(p_day text) RETURNS void
    LANGUAGE plpgsql
    AS $_$
BEGIN
    IF p_day !~ '^[0-9]{8}$' THEN
        RAISE EXCEPTION 'not a day of history: %', p_day USING ERRCODE = '22023';
    END IF;
    EXECUTE format('DROP TABLE IF EXISTS %I, %I', 'attempt_history_p' || p_day, 'run_history_p' || p_day);
    DELETE FROM history_days WHERE day = to_date(p_day, 'YYYYMMDD');
    DELETE FROM history_counts WHERE day = to_date(p_day, 'YYYYMMDD');
END
$_$;

CREATE FUNCTION forgeflow.forgeflow_end_attempts(p_ids uuid[], p_workers text[], p_attempts integer[], p_next text[], p_delays bigint[], p_outcomes text[], p_outputs text[], p_errors text[], p_now timestamp with time zone) RETURNS TABLE(id uuid, worker_id text, attempt integer, job_id uuid, status text)
    LANGUAGE plpgsql
    SET plan_cache_mode TO 'force_generic_plan'
    AS $_$
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

                SELECT job_id, count(*) FILTER (WHERE status = 'dead') AS dead, bool_or(status = 'succeeded') AS ok
                FROM done
                WHERE status IN ('succeeded', 'dead', 'cancelled')
                GROUP BY job_id
            ), plain AS (

                UPDATE jobs j
                SET status = 'completed', next_run_at = NULL, updated_at = coalesce(CAST($9 AS timestamptz), now())
                FROM ended e
                WHERE j.id = e.job_id AND j.cron_expr IS NULL AND j.notify IS NULL AND j.status IN ('active', 'paused')
                RETURNING j.id
            ), prior AS (

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

    FOR v_job, v_status, v_run, v_attempt, v_error IN
        SELECT e.job, e.status, e.run, e.attempt, e.error
        FROM unnest(v_ended, v_ended_status, v_ended_run, v_ended_attempt, v_ended_error)
             AS e (job, status, run, attempt, error)
        ORDER BY e.job, e.run LOOP

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
$_$;

CREATE FUNCTION forgeflow.forgeflow_expired_leases(p_limit integer, p_now timestamp with time zone) RETURNS TABLE(id uuid, job_id uuid, worker_id text, attempt integer, max_attempts integer, cancel_requested boolean, retry_base_seconds integer, retry_max_seconds integer)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    v_now timestamptz := coalesce(p_now, now());
BEGIN

    DELETE FROM worker_leases w WHERE w.ended_at < v_now - interval '1 day';

    RETURN QUERY
        SELECT r.id, r.job_id, coalesce(r.worker_instance, r.worker_id), r.attempt, r.max_attempts, r.cancel_requested,
               r.retry_base_seconds, r.retry_max_seconds
        FROM runs r
        WHERE r.status = 'running'
          AND r.lease_expires_at < v_now
          AND NOT EXISTS (SELECT 1 FROM worker_leases w WHERE w.instance = coalesce(r.worker_instance, r.worker_id)
                                 AND w.ended_at IS NULL AND w.expires_at >= v_now)
        ORDER BY r.lease_expires_at, r.id
        LIMIT p_limit;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_failure_pause_note(p_after integer) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
SELECT 'paused by the scheduler after ' || p_after || CASE WHEN p_after = 1 THEN ' dead run' ELSE ' dead runs in a row' END
       || ' (pause_after_failures: ' || p_after || '); resume the job once the cause is fixed'
$$;

CREATE FUNCTION forgeflow.forgeflow_flow_int(p jsonb, p_field text, p_part text, p_min integer, p_max integer, p_required boolean) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    v numeric;
BEGIN
    IF NOT p ? p_part OR jsonb_typeof(p -> p_part) = 'null' THEN
        IF p_required THEN
            RAISE EXCEPTION '%.% is required: a whole number from % to %', p_field, p_part, p_min, p_max
                USING ERRCODE = '22023', COLUMN = p_field || '.' || p_part;
        END IF;
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p -> p_part) <> 'number' THEN
        RAISE EXCEPTION '%.% must be a whole number from % to %, not %', p_field, p_part, p_min, p_max, jsonb_typeof(p -> p_part)
            USING ERRCODE = '22023', COLUMN = p_field || '.' || p_part;
    END IF;
    v := (p ->> p_part)::numeric;
    IF v <> trunc(v) OR v < p_min OR v > p_max THEN
        RAISE EXCEPTION '%.% must be between % and %, was %', p_field, p_part, p_min, p_max, left(p ->> p_part, 30)
            USING ERRCODE = '22023', COLUMN = p_field || '.' || p_part;
    END IF;
    RETURN v::integer;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_flow_key(p jsonb, p_field text, p_example text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    AS $$
BEGIN
    IF jsonb_typeof(p -> 'key') IS DISTINCT FROM 'string' OR btrim(p ->> 'key') = ''
       OR char_length(p ->> 'key') > 200 OR (p ->> 'key') ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION '%.key is required: 1 to 200 characters, not blank and without control characters, e.g. %', p_field, p_example
            USING ERRCODE = '22023', COLUMN = p_field || '.key';
    END IF;
    RETURN p ->> 'key';
END
$$;

CREATE FUNCTION forgeflow.forgeflow_heartbeat(p_holder text, p_ids uuid[], p_attempts integer[], p_lease_ms bigint, p_now timestamp with time zone) RETURNS TABLE(id uuid, attempt integer, cancel_requested boolean, held boolean, alive boolean)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    v_now   timestamptz := coalesce(p_now, now());
    v_label text := forgeflow_worker_label(p_holder);
    v_alive boolean;
BEGIN
    INSERT INTO worker_leases AS w (instance, worker_id, started_at, expires_at, lease_ms)
    VALUES (p_holder, v_label, v_now, v_now + p_lease_ms * interval '1 millisecond', p_lease_ms)
    ON CONFLICT (instance) DO UPDATE
        SET expires_at = excluded.expires_at, lease_ms = excluded.lease_ms
        WHERE w.ended_at IS NULL
    RETURNING true INTO v_alive;
    IF v_alive IS NULL THEN
        RETURN QUERY SELECT CAST(NULL AS uuid), CAST(NULL AS integer), false, false, false;
        RETURN;
    END IF;

    UPDATE runs r
    SET lease_expires_at = v_now + p_lease_ms * interval '1 millisecond'
    WHERE r.id IN (SELECT x.id
                   FROM runs x
                   JOIN unnest(p_ids, p_attempts) AS h (id, attempt) ON h.id = x.id AND h.attempt = x.attempt
                   WHERE x.status = 'running' AND coalesce(x.worker_instance, x.worker_id) = p_holder
                   ORDER BY x.id
                   FOR UPDATE OF x SKIP LOCKED);

    RETURN QUERY
        SELECT r.id, r.attempt, r.cancel_requested,
               EXISTS (SELECT 1 FROM unnest(p_ids, p_attempts) AS h (id, attempt)
                       WHERE h.id = r.id AND h.attempt = r.attempt),
               true
        FROM runs r
        WHERE r.worker_id = v_label AND r.status = 'running'
          AND coalesce(r.worker_instance, r.worker_id) = p_holder;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_history_bounds() RETURNS TABLE(suffix text, lower_at timestamp with time zone, upper_at timestamp with time zone)
    LANGUAGE sql STABLE
    AS $_$
    SELECT substr(c.relname, 14), CAST(m[1] AS timestamptz), CAST(m[2] AS timestamptz)
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), $re$FROM \('([^']+)'\) TO \('([^']+)'\)$re$) m
    WHERE i.inhparent = to_regclass('run_history')
      AND c.relname ~ '^run_history_p[0-9]{8}$'
$_$;

CREATE FUNCTION forgeflow.forgeflow_history_counted() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE history_counts c SET runs = c.runs - g.runs
        FROM (SELECT (b.lower_at AT TIME ZONE 'UTC')::date AS day, o.tenant, o.status, count(*) AS runs
              FROM history_removed o
              JOIN forgeflow_history_bounds() b ON o.finished_at >= b.lower_at AND o.finished_at < b.upper_at
              GROUP BY 1, 2, 3) g
        WHERE c.day = g.day AND c.tenant = g.tenant AND c.status = g.status;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO history_counts AS c (day, tenant, status, runs)
        SELECT (b.lower_at AT TIME ZONE 'UTC')::date, n.tenant, n.status, count(*)
        FROM history_added n
        JOIN forgeflow_history_bounds() b ON n.finished_at >= b.lower_at AND n.finished_at < b.upper_at
        GROUP BY 1, 2, 3
        ON CONFLICT (day, tenant, status) DO UPDATE SET runs = c.runs + excluded.runs;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_history_droppable(p_horizon timestamp with time zone) RETURNS SETOF text
    LANGUAGE sql STABLE
    AS $$
    SELECT b.suffix FROM forgeflow_history_bounds() b WHERE b.upper_at <= p_horizon ORDER BY 1
$$;

CREATE FUNCTION forgeflow.forgeflow_history_page(p_job uuid, p_status text, p_queue text, p_labels jsonb, p_scheduled_after timestamp with time zone, p_scheduled_before timestamp with time zone, p_finished_after timestamp with time zone, p_tenant text, p_after uuid, p_limit integer) RETURNS SETOF forgeflow.runs
    LANGUAGE plpgsql STABLE
    AS $_$
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
$_$;

CREATE FUNCTION forgeflow.forgeflow_history_partitions(p_from date, p_to date, p_span integer DEFAULT 1) RETURNS integer
    LANGUAGE plpgsql
    AS $$
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

CREATE FUNCTION forgeflow.forgeflow_history_span(p_keep interval) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT greatest(1, ceil(extract(epoch FROM p_keep) / 86400 / 28))::integer
$$;

CREATE FUNCTION forgeflow.forgeflow_history_status_counts(p_tenant text) RETURNS TABLE(status text, runs bigint)
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
    RETURN QUERY
    SELECT c.status, CAST(sum(c.runs) AS bigint)
    FROM history_counts c
    WHERE c.day IN (SELECT (b.lower_at AT TIME ZONE 'UTC')::date FROM forgeflow_history_bounds() b)
      AND (p_tenant IS NULL OR c.tenant = p_tenant)
    GROUP BY c.status;
END
$$;

CREATE TABLE forgeflow.jobs (
    id uuid NOT NULL,
    name text NOT NULL,
    executor text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    cron_expr text,
    run_at timestamp with time zone,
    timezone text DEFAULT 'UTC'::text NOT NULL,
    priority smallint DEFAULT 5 NOT NULL,
    max_attempts integer DEFAULT 3 NOT NULL,
    timeout_seconds integer DEFAULT 300 NOT NULL,
    catch_up text DEFAULT 'skip'::text NOT NULL,
    idempotency_key text,
    status text DEFAULT 'active'::text NOT NULL,
    next_run_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    concurrency_key text,
    max_concurrent integer,
    overlap text DEFAULT 'allow'::text NOT NULL,
    submitted_via text DEFAULT 'rest'::text NOT NULL,
    unique_key text,
    retry_base_seconds integer,
    retry_max_seconds integer,
    labels jsonb DEFAULT '{}'::jsonb NOT NULL,
    traceparent text,
    tracestate text,
    on_parent_failure text,
    batch_id uuid,
    start_at timestamp with time zone,
    end_at timestamp with time zone,
    max_runs integer,
    jitter_seconds integer DEFAULT 0 NOT NULL,
    pause_after_failures integer,
    fired_runs integer DEFAULT 0 NOT NULL,
    paused_note text,
    paused_by text,
    sequence_key text,
    sequence_on_dead text,
    dead_streak integer DEFAULT 0 NOT NULL,
    notify jsonb,
    awaiting_recovery boolean DEFAULT false NOT NULL,
    debounce jsonb,
    throttle jsonb,
    tenant text DEFAULT 'default'::text NOT NULL
);

CREATE FUNCTION forgeflow.forgeflow_job_rules(r forgeflow.jobs) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $_$
DECLARE
    broken text;
BEGIN
    CASE
        WHEN NOT (pg_catalog.char_length(r.name) BETWEEN 1 AND 200) THEN broken := 'jobs_name_length';
        WHEN NOT (pg_catalog.char_length(r.executor) BETWEEN 1 AND 100) THEN broken := 'jobs_executor_length';
        WHEN NOT (pg_catalog.jsonb_typeof(r.payload) = 'object') THEN broken := 'jobs_payload_object';
        WHEN NOT (r.priority BETWEEN 1 AND 9) THEN broken := 'jobs_priority_range';
        WHEN NOT (r.max_attempts BETWEEN 1 AND 100) THEN broken := 'jobs_max_attempts_range';
        WHEN NOT (r.timeout_seconds BETWEEN 1 AND 86400) THEN broken := 'jobs_timeout_range';
        WHEN NOT (r.catch_up IN ('skip', 'once')) THEN broken := 'jobs_catch_up_values';
        WHEN NOT (pg_catalog.char_length(r.idempotency_key) BETWEEN 1 AND 264) THEN broken := 'jobs_idempotency_key_length';
        WHEN NOT (r.status IN ('active', 'paused', 'cancelled', 'completed', 'deleted')) THEN broken := 'jobs_status_values';
        WHEN NOT (r.cron_expr IS NULL OR r.run_at IS NULL) THEN broken := 'jobs_one_schedule';
        WHEN NOT (r.queue ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$') THEN broken := 'jobs_queue_name';
        WHEN NOT (pg_catalog.char_length(r.concurrency_key) BETWEEN 1 AND 264) THEN broken := 'jobs_concurrency_key_length';
        WHEN NOT (r.max_concurrent BETWEEN 1 AND 10000) THEN broken := 'jobs_max_concurrent_range';
        WHEN NOT (r.concurrency_key IS NULL OR r.max_concurrent IS NOT NULL) THEN broken := 'jobs_key_needs_limit';
        WHEN NOT (r.overlap IN ('allow', 'skip', 'queue_one', 'cancel_running')) THEN broken := 'jobs_overlap_values';
        WHEN NOT (r.submitted_via IN ('rest', 'sql')) THEN broken := 'jobs_submitted_via_values';
        WHEN NOT (pg_catalog.char_length(r.unique_key) BETWEEN 1 AND 264) THEN broken := 'jobs_unique_key_length';
        WHEN NOT (r.unique_key IS NULL OR r.cron_expr IS NULL) THEN broken := 'jobs_unique_key_one_off';
        WHEN NOT (r.retry_base_seconds BETWEEN 1 AND 86400) THEN broken := 'jobs_retry_base_range';
        WHEN NOT (r.retry_max_seconds BETWEEN 1 AND 86400) THEN broken := 'jobs_retry_max_range';
        WHEN NOT (r.retry_base_seconds <= r.retry_max_seconds) THEN broken := 'jobs_retry_base_at_most_max';
        WHEN NOT (pg_catalog.jsonb_typeof(r.labels) = 'object') THEN broken := 'jobs_labels_object';
        WHEN NOT (r.on_parent_failure IN ('cancel', 'run', 'wait')) THEN broken := 'jobs_on_parent_failure_values';
        WHEN NOT (r.jitter_seconds BETWEEN 0 AND 86400) THEN broken := 'jobs_jitter_range';
        WHEN NOT (r.max_runs BETWEEN 1 AND 1000000) THEN broken := 'jobs_max_runs_range';
        WHEN NOT (r.pause_after_failures BETWEEN 1 AND 1000) THEN broken := 'jobs_pause_after_failures_range';
        WHEN NOT (pg_catalog.char_length(r.paused_note) BETWEEN 1 AND 500) THEN broken := 'jobs_paused_note_length';
        WHEN NOT (pg_catalog.char_length(r.paused_by) BETWEEN 1 AND 200) THEN broken := 'jobs_paused_by_length';
        WHEN NOT (r.end_at > r.start_at) THEN broken := 'jobs_window_order';
        WHEN NOT (r.cron_expr IS NOT NULL OR (r.start_at IS NULL AND r.end_at IS NULL AND r.max_runs IS NULL
                  AND r.jitter_seconds = 0 AND r.pause_after_failures IS NULL)) THEN broken := 'jobs_controls_recurring';
        WHEN NOT (r.fired_runs >= 0) THEN broken := 'jobs_fired_runs_positive';
        WHEN NOT (pg_catalog.char_length(r.sequence_key) BETWEEN 1 AND 264) THEN broken := 'jobs_sequence_key_length';
        WHEN NOT (r.sequence_on_dead IN ('block', 'continue')) THEN broken := 'jobs_sequence_on_dead_values';
        WHEN NOT (r.sequence_key IS NULL OR r.cron_expr IS NULL) THEN broken := 'jobs_sequence_one_off';
        WHEN NOT (r.dead_streak >= 0) THEN broken := 'jobs_dead_streak_positive';
        WHEN NOT (pg_catalog.jsonb_typeof(r.notify -> 'url') = 'string' AND pg_catalog.jsonb_typeof(r.notify -> 'on') = 'array'
                  AND pg_catalog.jsonb_array_length(r.notify -> 'on') > 0) THEN broken := 'jobs_notify_shape';
        WHEN NOT (pg_catalog.jsonb_typeof(r.debounce -> 'key') = 'string'
                  AND pg_catalog.jsonb_typeof(r.debounce -> 'period_seconds') = 'number'
                  AND r.debounce ->> 'edge' IN ('trailing', 'leading')) THEN broken := 'jobs_debounce_shape';
        WHEN NOT (pg_catalog.jsonb_typeof(r.throttle -> 'key') = 'string'
                  AND (r.throttle ->> 'count')::integer BETWEEN 1 AND 100000
                  AND (r.throttle ->> 'per_seconds')::integer BETWEEN 1 AND 86400) THEN broken := 'jobs_throttle_shape';
        WHEN NOT (r.debounce IS NULL OR r.cron_expr IS NULL) THEN broken := 'jobs_debounce_one_off';
        WHEN NOT (r.tenant ~ '^[a-z0-9_.-]{1,63}$') THEN broken := 'jobs_tenant_name';
        ELSE RETURN true;
    END CASE;
    RAISE EXCEPTION 'new row for relation "jobs" violates check constraint "%"', broken
        USING ERRCODE = 'check_violation', CONSTRAINT = broken, TABLE = 'jobs';
END
$_$;

CREATE FUNCTION forgeflow.forgeflow_link_parents(p_child uuid, p_parents uuid[]) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_missing uuid;
    v_cron    uuid;
BEGIN

    UPDATE runs r SET has_children = true
    WHERE r.id IN (SELECT x.id FROM runs x WHERE x.job_id = ANY (p_parents) AND NOT x.has_children ORDER BY x.id
                   FOR UPDATE);

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

    UPDATE runs r SET has_children = true WHERE r.job_id = ANY (p_parents) AND NOT r.has_children;
    INSERT INTO job_dependencies (job_id, parent_id, position)
    SELECT p_child, p.id, p.n FROM unnest(p_parents) WITH ORDINALITY AS p (id, n)
    ON CONFLICT DO NOTHING;
    RETURN forgeflow_resolve_child(p_child, true);
END
$$;

CREATE FUNCTION forgeflow.forgeflow_move_history(p_since timestamp with time zone, p_before timestamp with time zone, p_limit integer, p_now timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql
    AS $$
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

    ORDER BY g.finished_at, g.id;
    GET DIAGNOSTICS moved = ROW_COUNT;
    RETURN moved;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_notify_checked(p jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    v_url  text;
    v_on   jsonb;
    v_part text;
BEGIN
    IF p IS NULL OR jsonb_typeof(p) = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p) <> 'object' THEN
        RAISE EXCEPTION 'notify must be a JSON object such as ''{"url": "https://hooks.example.com/forgeflow", "on": ["dead"]}'', was %', jsonb_typeof(p)
            USING ERRCODE = '22023', COLUMN = 'notify';
    END IF;
    FOR v_part IN SELECT k FROM jsonb_object_keys(p) AS k ORDER BY k LOOP
        IF v_part NOT IN ('url', 'on') THEN
            RAISE EXCEPTION 'unknown field ''notify.%'': notify has url (where the notices are POSTed) and on (the events: dead, paused, recovered)', left(v_part, 60)
                USING ERRCODE = '22023', COLUMN = 'notify.' || left(v_part, 60);
        END IF;
    END LOOP;
    v_url := p ->> 'url';
    IF jsonb_typeof(p -> 'url') IS DISTINCT FROM 'string' OR btrim(v_url) = '' THEN
        RAISE EXCEPTION 'notify.url is required: the http or https URL the notices are POSTed to, e.g. https://hooks.example.com/forgeflow'
            USING ERRCODE = '22023', COLUMN = 'notify.url';
    END IF;
    IF char_length(v_url) > 2000 THEN
        RAISE EXCEPTION 'notify.url must be at most 2000 characters, was %', char_length(v_url)
            USING ERRCODE = '22023', COLUMN = 'notify.url';
    END IF;
    IF v_url ~ '[[:space:][:cntrl:]]' THEN
        RAISE EXCEPTION 'notify.url must not contain spaces or control characters: escape them (%%20)'
            USING ERRCODE = '22023', COLUMN = 'notify.url';
    END IF;
    IF v_url !~* '^https?://[^/?#@:]+' AND v_url !~* '^https?://[^/?#]*@[^/?#:]+' AND v_url !~* '^https?://\[' THEN
        RAISE EXCEPTION 'notify.url must be an absolute http or https URL with a host, e.g. https://hooks.example.com/forgeflow'
            USING ERRCODE = '22023', COLUMN = 'notify.url';
    END IF;
    v_on := coalesce(p -> 'on', '["dead", "paused", "recovered"]'::jsonb);
    IF jsonb_typeof(v_on) = 'null' THEN
        v_on := '["dead", "paused", "recovered"]'::jsonb;
    END IF;
    IF jsonb_typeof(v_on) <> 'array' OR jsonb_array_length(v_on) = 0 THEN
        RAISE EXCEPTION 'notify.on must name at least one event of dead, paused, recovered (leave it out for all three)'
            USING ERRCODE = '22023', COLUMN = 'notify.on';
    END IF;
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(v_on) AS e
               WHERE jsonb_typeof(e) <> 'string' OR e #>> '{}' NOT IN ('dead', 'paused', 'recovered')) THEN
        RAISE EXCEPTION 'notify.on has an unknown event: use dead, paused, recovered'
            USING ERRCODE = '22023', COLUMN = 'notify.on';
    END IF;
    RETURN jsonb_build_object('url', v_url, 'on',
        (SELECT jsonb_agg(x ORDER BY array_position(ARRAY['dead', 'paused', 'recovered'], x))
         FROM (SELECT DISTINCT e #>> '{}' AS x FROM jsonb_array_elements(v_on) AS e) d));
END
$$;

CREATE FUNCTION forgeflow.forgeflow_parent_removed_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $$
DECLARE
    v_child uuid;
BEGIN
    FOR v_child IN SELECT d.job_id FROM job_dependencies d WHERE d.parent_id = OLD.id ORDER BY d.job_id LOOP
        PERFORM forgeflow_resolve_child(v_child, true, OLD.id);
    END LOOP;
    RETURN OLD;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_recheck_children(p_limit integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
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

    PERFORM forgeflow_throttle_sweep(p_limit * 10);

    RETURN v_count + forgeflow_sequence_recheck(p_limit);
END
$$;

CREATE FUNCTION forgeflow.forgeflow_reopen_children(p_parent uuid) RETURNS integer
    LANGUAGE plpgsql
    AS $$
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

CREATE FUNCTION forgeflow.forgeflow_resolve_child(p_child uuid, p_wait boolean, p_removed uuid DEFAULT NULL::uuid) RETURNS text
    LANGUAGE plpgsql
    AS $$
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

CREATE FUNCTION forgeflow.forgeflow_resolve_children(p_parent uuid) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_child uuid;
BEGIN
    FOR v_child IN SELECT d.job_id FROM job_dependencies d WHERE d.parent_id = p_parent ORDER BY d.job_id LOOP
        PERFORM forgeflow_resolve_child(v_child, false);
    END LOOP;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_restore_run(p_id uuid) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE
    restored integer;
BEGIN

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

CREATE FUNCTION forgeflow.forgeflow_run_ended_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $$
BEGIN
    PERFORM forgeflow_resolve_children(NEW.job_id);
    RETURN NULL;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_run_rules(r forgeflow.runs) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
DECLARE
    broken text;
BEGIN
    CASE
        WHEN NOT (r.status IN ('waiting', 'pending', 'running', 'succeeded', 'dead', 'cancelled'))
            THEN broken := 'runs_status_values';
        WHEN NOT (r.priority BETWEEN 1 AND 9) THEN broken := 'runs_priority_range';
        WHEN NOT (r.attempt >= 0) THEN broken := 'runs_attempt_non_negative';
        WHEN NOT (r.max_attempts >= 1) THEN broken := 'runs_max_attempts_positive';
        WHEN NOT (r.timeout_seconds BETWEEN 1 AND 86400) THEN broken := 'runs_timeout_range';
        WHEN NOT ((r.status = 'running') = (r.worker_id IS NOT NULL AND r.lease_expires_at IS NOT NULL))
            THEN broken := 'runs_running_is_leased';
        WHEN NOT ((r.concurrency_key IS NULL) = (r.max_concurrent IS NULL)) THEN broken := 'runs_key_has_limit';
        WHEN NOT (r.retry_base_seconds BETWEEN 1 AND 86400) THEN broken := 'runs_retry_base_range';
        WHEN NOT (r.retry_max_seconds BETWEEN 1 AND 86400) THEN broken := 'runs_retry_max_range';
        WHEN NOT (r.retry_base_seconds <= r.retry_max_seconds) THEN broken := 'runs_retry_base_at_most_max';
        ELSE RETURN true;
    END CASE;
    RAISE EXCEPTION 'new row for relation "runs" violates check constraint "%"', broken
        USING ERRCODE = 'check_violation', CONSTRAINT = broken, TABLE = 'runs';
END
$$;

CREATE FUNCTION forgeflow.forgeflow_scoped_key(p_tenant text, p_key text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE WHEN p_key IS NULL OR p_tenant IS NULL OR p_tenant = 'default' THEN p_key
            ELSE p_tenant || chr(31) || p_key END
$$;

CREATE FUNCTION forgeflow.forgeflow_sequence_admit_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'sequence_key needs a READ COMMITTED transaction (this one is %): submit the job from one, or leave sequence_key out',
            current_setting('transaction_isolation')
            USING ERRCODE = '0A000', COLUMN = 'sequence_key';
    END IF;
    PERFORM pg_advisory_xact_lock(20419, hashtext(NEW.sequence_key));
    NEW.sequence_pos := nextval('forgeflow_sequence_positions');
    IF NEW.status = 'pending' AND forgeflow_sequence_busy(NEW.sequence_key, NEW.id) THEN
        NEW.status := 'waiting';
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_sequence_advance(p_key text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_next uuid;
    v_job  uuid;
BEGIN
    IF NOT pg_try_advisory_xact_lock(20419, hashtext(p_key)) THEN
        INSERT INTO sequence_rechecks (sequence_key) VALUES (p_key) ON CONFLICT DO NOTHING;
        RETURN false;
    END IF;
    IF EXISTS (SELECT 1 FROM runs r WHERE r.sequence_key = p_key AND r.status IN ('pending', 'running'))
       OR EXISTS (SELECT 1 FROM runs r
                  WHERE r.sequence_key = p_key AND r.status = 'dead' AND r.sequence_on_dead = 'block') THEN
        RETURN true;
    END IF;
    SELECT r.id INTO v_next FROM runs r
    WHERE r.sequence_key = p_key AND r.status = 'waiting'
    ORDER BY r.sequence_pos
    LIMIT 1;
    IF v_next IS NULL THEN
        RETURN true;
    END IF;
    PERFORM 1 FROM runs r WHERE r.id = v_next FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        INSERT INTO sequence_rechecks (sequence_key) VALUES (p_key) ON CONFLICT DO NOTHING;
        RETURN false;
    END IF;

    UPDATE runs r SET status = 'pending', scheduled_for = greatest(r.scheduled_for, now())
    WHERE r.id = v_next AND r.status = 'waiting'
    RETURNING r.job_id INTO v_job;
    PERFORM pg_notify('forgeflow_runs', v_next || ',' || v_job || ',pending,0,'
                      || floor(extract(epoch FROM now()) * 1000)::bigint || ',');
    PERFORM pg_notify('forgeflow_due', '');
    RETURN true;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_sequence_busy(p_key text, p_except uuid) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
SELECT EXISTS (SELECT 1 FROM runs r
               WHERE r.sequence_key = p_key AND r.status IN ('waiting', 'pending', 'running')
                 AND r.id IS DISTINCT FROM p_except)
    OR EXISTS (SELECT 1 FROM runs r
               WHERE r.sequence_key = p_key AND r.status = 'dead' AND r.sequence_on_dead = 'block'
                 AND r.id IS DISTINCT FROM p_except)
$$;

CREATE FUNCTION forgeflow.forgeflow_sequence_moved_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM forgeflow_sequence_advance(OLD.sequence_key);
    ELSE
        PERFORM forgeflow_sequence_advance(NEW.sequence_key);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_sequence_recheck(p_limit integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_key   text;
    v_count integer := 0;
BEGIN
    FOR v_key IN
        DELETE FROM sequence_rechecks s
        WHERE s.sequence_key IN (SELECT x.sequence_key FROM sequence_rechecks x ORDER BY x.sequence_key
                                 LIMIT p_limit FOR UPDATE SKIP LOCKED)
        RETURNING s.sequence_key
    LOOP
        IF forgeflow_sequence_advance(v_key) THEN
            v_count := v_count + 1;
        END IF;
    END LOOP;
    RETURN v_count;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_sequence_requeue_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $$
BEGIN
    NEW.status := 'waiting';
    RETURN NEW;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_throttle_checked(p jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    AS $$
DECLARE
    v_part text;
BEGIN
    IF p IS NULL OR jsonb_typeof(p) = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p) <> 'object' THEN
        RAISE EXCEPTION 'throttle must be a JSON object such as ''{"key": "partner-api:account-7", "count": 5, "per_seconds": 2}'', was %', jsonb_typeof(p)
            USING ERRCODE = '22023', COLUMN = 'throttle';
    END IF;
    FOR v_part IN SELECT k FROM jsonb_object_keys(p) AS k ORDER BY k LOOP
        IF v_part NOT IN ('key', 'count', 'per_seconds') THEN
            RAISE EXCEPTION 'unknown field ''throttle.%'': throttle has key, count and per_seconds', left(v_part, 60)
                USING ERRCODE = '22023', COLUMN = 'throttle.' || left(v_part, 60);
        END IF;
    END LOOP;
    RETURN jsonb_build_object('key', forgeflow_flow_key(p, 'throttle', '''partner-api:account-7'''),
                              'count', forgeflow_flow_int(p, 'throttle', 'count', 1, 100000, true),
                              'per_seconds', forgeflow_flow_int(p, 'throttle', 'per_seconds', 1, 86400, true));
END
$$;

CREATE FUNCTION forgeflow.forgeflow_throttle_sweep(p_limit integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_n integer;
BEGIN
    DELETE FROM throttle_starts s
    WHERE s.ctid = ANY (ARRAY(SELECT x.ctid FROM throttle_starts x WHERE x.expires_at <= now()
                              ORDER BY x.expires_at LIMIT p_limit));
    GET DIAGNOSTICS v_n = ROW_COUNT;
    RETURN v_n;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_trace_child(p_parent text, p_new_trace boolean DEFAULT false) RETURNS text
    LANGUAGE sql PARALLEL SAFE
    AS $$
SELECT CASE WHEN p_parent IS NULL THEN NULL
            ELSE '00-' || CASE WHEN p_new_trace THEN replace(gen_random_uuid()::text, '-', '')
                               ELSE substr(p_parent, 4, 32) END
                 || '-' || left(replace(gen_random_uuid()::text, '-', ''), 16) || '-' || substr(p_parent, 54, 2) END
$$;

CREATE FUNCTION forgeflow.forgeflow_uuid_v7() RETURNS uuid
    LANGUAGE sql PARALLEL SAFE
    RETURN (encode(set_bit(set_bit(OVERLAY(uuid_send(gen_random_uuid()) PLACING SUBSTRING(int8send((floor((EXTRACT(epoch FROM clock_timestamp()) * (1000)::numeric)))::bigint) FROM 3) FROM 1 FOR 6), (52)::bigint, 1), (53)::bigint, 1), 'hex'::text))::uuid;

CREATE FUNCTION forgeflow.forgeflow_watch_sql(p_promise_ms integer) RETURNS TABLE(open boolean, silent bigint, watched boolean)
    LANGUAGE plpgsql
    SET search_path TO 'forgeflow'
    AS $$
DECLARE
    v_ms    bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
    v_watch bigint := (SELECT s.last_value FROM forgeflow_sql_watch s);
BEGIN
    IF p_promise_ms > 0 AND v_watch < v_ms + p_promise_ms / 2 THEN
        v_watch := v_ms + p_promise_ms;
        PERFORM setval('forgeflow_sql_watch', v_watch);
    END IF;
    RETURN QUERY SELECT NOT pg_try_advisory_xact_lock(1179014001, 1), q.last_value, v_watch > v_ms
                 FROM forgeflow_sql_silent q;
END
$$;

CREATE FUNCTION forgeflow.forgeflow_worker_label(p_holder text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
SELECT regexp_replace(p_holder, '#[0-9a-f]{32}$', '')
$_$;

CREATE FUNCTION forgeflow.run_attempts_reject_rewrite() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'forgeflow', 'pg_temp'
    AS $$
BEGIN
    IF OLD.retry_after_seconds IS NULL AND NEW.retry_after_seconds IS NOT NULL
       AND (NEW.run_id, NEW.attempt, NEW.worker_id, NEW.started_at, NEW.finished_at, NEW.outcome, NEW.error)
           IS NOT DISTINCT FROM (OLD.run_id, OLD.attempt, OLD.worker_id, OLD.started_at, OLD.finished_at, OLD.outcome,
                                 OLD.error) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'attempt % of run % already ended (%); attempt rows are never rewritten',
        OLD.attempt, OLD.run_id, OLD.outcome
        USING ERRCODE = 'check_violation';
END
$$;

CREATE TABLE forgeflow.run_history (
    id uuid NOT NULL,
    job_id uuid NOT NULL,
    status text NOT NULL,
    priority smallint NOT NULL,
    scheduled_for timestamp with time zone NOT NULL,
    fired_for timestamp with time zone,
    attempt integer DEFAULT 0 NOT NULL,
    max_attempts integer NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone NOT NULL,
    worker_id text,
    lease_expires_at timestamp with time zone,
    output text,
    error text,
    executor text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    timeout_seconds integer NOT NULL,
    cancel_requested boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    concurrency_key text,
    max_concurrent integer,
    unique_key text,
    retry_base_seconds integer,
    retry_max_seconds integer,
    labels jsonb DEFAULT '{}'::jsonb NOT NULL,
    traceparent text,
    tracestate text,
    trace_origin text,
    has_children boolean DEFAULT false NOT NULL,
    worker_instance text,
    backfill_id uuid,
    snoozes integer DEFAULT 0 NOT NULL,
    sequence_key text,
    sequence_on_dead text,
    sequence_pos bigint,
    throttle_key text,
    throttle_count integer,
    throttle_per_seconds integer,
    debounce_key text,
    debounce_until timestamp with time zone,
    debounced integer DEFAULT 0 NOT NULL,
    tenant text DEFAULT 'default'::text NOT NULL
)
PARTITION BY RANGE (finished_at);

CREATE VIEW forgeflow.all_runs AS
 SELECT runs.id,
    runs.job_id,
    runs.status,
    runs.priority,
    runs.scheduled_for,
    runs.fired_for,
    runs.attempt,
    runs.max_attempts,
    runs.started_at,
    runs.finished_at,
    runs.worker_id,
    runs.lease_expires_at,
    runs.output,
    runs.error,
    runs.executor,
    runs.payload,
    runs.timeout_seconds,
    runs.cancel_requested,
    runs.created_at,
    runs.queue,
    runs.concurrency_key,
    runs.max_concurrent,
    runs.unique_key,
    runs.retry_base_seconds,
    runs.retry_max_seconds,
    runs.labels,
    runs.traceparent,
    runs.tracestate,
    runs.trace_origin,
    runs.has_children,
    runs.worker_instance,
    runs.backfill_id,
    runs.snoozes,
    runs.sequence_key,
    runs.sequence_on_dead,
    runs.sequence_pos,
    runs.throttle_key,
    runs.throttle_count,
    runs.throttle_per_seconds,
    runs.debounce_key,
    runs.debounce_until,
    runs.debounced,
    runs.tenant
   FROM forgeflow.runs
UNION ALL
 SELECT run_history.id,
    run_history.job_id,
    run_history.status,
    run_history.priority,
    run_history.scheduled_for,
    run_history.fired_for,
    run_history.attempt,
    run_history.max_attempts,
    run_history.started_at,
    run_history.finished_at,
    run_history.worker_id,
    run_history.lease_expires_at,
    run_history.output,
    run_history.error,
    run_history.executor,
    run_history.payload,
    run_history.timeout_seconds,
    run_history.cancel_requested,
    run_history.created_at,
    run_history.queue,
    run_history.concurrency_key,
    run_history.max_concurrent,
    run_history.unique_key,
    run_history.retry_base_seconds,
    run_history.retry_max_seconds,
    run_history.labels,
    run_history.traceparent,
    run_history.tracestate,
    run_history.trace_origin,
    run_history.has_children,
    run_history.worker_instance,
    run_history.backfill_id,
    run_history.snoozes,
    run_history.sequence_key,
    run_history.sequence_on_dead,
    run_history.sequence_pos,
    run_history.throttle_key,
    run_history.throttle_count,
    run_history.throttle_per_seconds,
    run_history.debounce_key,
    run_history.debounce_until,
    run_history.debounced,
    run_history.tenant
   FROM forgeflow.run_history;

CREATE TABLE forgeflow.attempt_history (
    run_id uuid NOT NULL,
    attempt integer NOT NULL,
    worker_id text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    outcome text,
    error text,
    retry_after_seconds integer,
    run_finished_at timestamp with time zone NOT NULL
)
PARTITION BY RANGE (run_finished_at);

CREATE TABLE forgeflow.backfills (
    id uuid NOT NULL,
    job_id uuid NOT NULL,
    from_tick timestamp with time zone NOT NULL,
    to_tick timestamp with time zone NOT NULL,
    overlap text NOT NULL,
    ticks integer NOT NULL,
    created integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT backfills_created_range CHECK (((created >= 0) AND (created <= ticks))),
    CONSTRAINT backfills_overlap_values CHECK ((overlap = ANY (ARRAY['allow'::text, 'skip'::text, 'queue_one'::text]))),
    CONSTRAINT backfills_range_order CHECK ((to_tick >= from_tick)),
    CONSTRAINT backfills_ticks_range CHECK (((ticks >= 0) AND (ticks <= 10000)))
);

CREATE TABLE forgeflow.batches (
    id uuid NOT NULL,
    name text,
    idempotency_key text,
    request_hash text NOT NULL,
    total integer NOT NULL,
    job_ids uuid[] NOT NULL,
    refs jsonb DEFAULT '{}'::jsonb NOT NULL,
    on_complete_job_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    succeeded integer,
    dead integer,
    cancelled integer,
    tenant text DEFAULT 'default'::text NOT NULL,
    CONSTRAINT batches_tenant_name CHECK ((tenant ~ '^[a-z0-9_.-]{1,63}$'::text))
);

CREATE TABLE forgeflow.executors (
    name text NOT NULL,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_by text NOT NULL,
    CONSTRAINT executors_name_length CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100)))
);

CREATE SEQUENCE forgeflow.forgeflow_sequence_positions
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE SEQUENCE forgeflow.forgeflow_sql_silent
    START WITH 0
    INCREMENT BY 1
    MINVALUE 0
    NO MAXVALUE
    CACHE 1;

CREATE SEQUENCE forgeflow.forgeflow_sql_watch
    START WITH 0
    INCREMENT BY 1
    MINVALUE 0
    NO MAXVALUE
    CACHE 1;

CREATE TABLE forgeflow.handlers (
    name text NOT NULL,
    worker_id text NOT NULL,
    seen_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT handlers_name_length CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100))),
    CONSTRAINT handlers_worker_length CHECK (((char_length(worker_id) >= 1) AND (char_length(worker_id) <= 200)))
);

CREATE TABLE forgeflow.history_counts (
    day date NOT NULL,
    tenant text NOT NULL,
    status text NOT NULL,
    runs bigint NOT NULL
);

CREATE TABLE forgeflow.history_days (
    day date NOT NULL,
    newest_id uuid NOT NULL
);

CREATE TABLE forgeflow.job_dependencies (
    job_id uuid NOT NULL,
    parent_id uuid NOT NULL,
    "position" smallint NOT NULL
);

CREATE TABLE forgeflow.leader_lease (
    name text NOT NULL,
    holder text NOT NULL,
    term bigint NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT leader_lease_term CHECK ((term > 0))
);

CREATE TABLE forgeflow.nodes (
    worker_id text NOT NULL,
    roles text[] NOT NULL,
    version text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    last_seen_at timestamp with time zone NOT NULL,
    leader boolean DEFAULT false NOT NULL,
    containment text,
    job_user text,
    grpc_address text,
    database_pooling text,
    wake_ups text,
    leadership text,
    leader_term bigint,
    pool_max integer,
    pool_in_use integer,
    session_connections integer,
    history_reader text
);

CREATE TABLE forgeflow.notices (
    id bigint NOT NULL,
    job_id uuid NOT NULL,
    job_name text,
    event text NOT NULL,
    url text NOT NULL,
    run_id uuid,
    attempt integer,
    error text,
    note text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT notices_event CHECK ((event = ANY (ARRAY['dead'::text, 'paused'::text, 'recovered'::text])))
);

ALTER TABLE forgeflow.notices ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME forgeflow.notices_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE forgeflow.queue_starts (
    queue text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    tenant text DEFAULT 'default'::text NOT NULL
);

CREATE TABLE forgeflow.queues (
    name text NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    max_running integer,
    rate_count integer,
    rate_per_seconds integer,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    tenant text DEFAULT 'default'::text NOT NULL,
    CONSTRAINT queues_max_running_range CHECK (((max_running >= 1) AND (max_running <= 100000))),
    CONSTRAINT queues_name CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'::text)),
    CONSTRAINT queues_rate_count_range CHECK (((rate_count >= 1) AND (rate_count <= 1000000))),
    CONSTRAINT queues_rate_pair CHECK (((rate_count IS NULL) = (rate_per_seconds IS NULL))),
    CONSTRAINT queues_rate_window_range CHECK (((rate_per_seconds >= 1) AND (rate_per_seconds <= 86400))),
    CONSTRAINT queues_tenant CHECK ((tenant ~ '^[a-z0-9_.-]{1,63}$'::text))
);

CREATE TABLE forgeflow.run_attempts (
    run_id uuid NOT NULL,
    attempt integer NOT NULL,
    worker_id text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    outcome text,
    error text,
    retry_after_seconds integer,
    CONSTRAINT run_attempts_attempt_positive CHECK ((attempt >= 1)),
    CONSTRAINT run_attempts_finished_has_outcome CHECK (((outcome IS NULL) = (finished_at IS NULL))),
    CONSTRAINT run_attempts_outcome_values CHECK ((outcome = ANY (ARRAY['succeeded'::text, 'failed'::text, 'timed_out'::text, 'lease_expired'::text, 'cancelled'::text, 'released'::text, 'snoozed'::text, 'gave_up'::text]))),
    CONSTRAINT run_attempts_retry_after_non_negative CHECK ((retry_after_seconds >= 0))
);

CREATE TABLE forgeflow.schema_release (
    id boolean DEFAULT true NOT NULL,
    fingerprint text NOT NULL,
    changelog_state text NOT NULL,
    migrated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT schema_release_id_check CHECK (id)
);

CREATE TABLE forgeflow.sequence_rechecks (
    sequence_key text NOT NULL,
    queued_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE forgeflow.tenant_shares (
    tenant text NOT NULL,
    pass double precision DEFAULT 0 NOT NULL
);

CREATE TABLE forgeflow.tenant_starts (
    tenant text NOT NULL,
    started_at timestamp with time zone NOT NULL
);

CREATE TABLE forgeflow.tenants (
    name text NOT NULL,
    weight integer DEFAULT 1 NOT NULL,
    max_running integer,
    rate_count integer,
    rate_per_seconds integer,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT tenants_max_running CHECK (((max_running >= 1) AND (max_running <= 100000))),
    CONSTRAINT tenants_name CHECK ((name ~ '^[a-z0-9_.-]{1,63}$'::text)),
    CONSTRAINT tenants_rate_count CHECK (((rate_count >= 1) AND (rate_count <= 1000000))),
    CONSTRAINT tenants_rate_pair CHECK (((rate_count IS NULL) = (rate_per_seconds IS NULL))),
    CONSTRAINT tenants_rate_per_seconds CHECK (((rate_per_seconds >= 1) AND (rate_per_seconds <= 86400))),
    CONSTRAINT tenants_weight CHECK (((weight >= 1) AND (weight <= 1000)))
);

CREATE TABLE forgeflow.throttle_starts (
    throttle_key text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

CREATE TABLE forgeflow.worker_leases (
    instance text NOT NULL,
    worker_id text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    lease_ms bigint NOT NULL,
    ended_at timestamp with time zone,
    CONSTRAINT worker_leases_lease_positive CHECK ((lease_ms > 0))
);

CREATE TABLE forgeflow.workflow_rechecks (
    job_id uuid NOT NULL
);

ALTER TABLE ONLY forgeflow.backfills
    ADD CONSTRAINT backfills_pkey PRIMARY KEY (id);

ALTER TABLE ONLY forgeflow.batches
    ADD CONSTRAINT batches_idempotency_key_unique UNIQUE (idempotency_key);

ALTER TABLE ONLY forgeflow.batches
    ADD CONSTRAINT batches_pkey PRIMARY KEY (id);

ALTER TABLE ONLY forgeflow.executors
    ADD CONSTRAINT executors_pkey PRIMARY KEY (name);

ALTER TABLE ONLY forgeflow.handlers
    ADD CONSTRAINT handlers_pkey PRIMARY KEY (name, worker_id);

ALTER TABLE ONLY forgeflow.history_counts
    ADD CONSTRAINT history_counts_pkey PRIMARY KEY (day, tenant, status);

ALTER TABLE ONLY forgeflow.history_days
    ADD CONSTRAINT history_days_pkey PRIMARY KEY (day);

ALTER TABLE ONLY forgeflow.job_dependencies
    ADD CONSTRAINT job_dependencies_pkey PRIMARY KEY (job_id, parent_id);

ALTER TABLE ONLY forgeflow.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

ALTER TABLE forgeflow.jobs
    ADD CONSTRAINT jobs_rules CHECK (forgeflow.forgeflow_job_rules(jobs.*)) NOT VALID;

ALTER TABLE ONLY forgeflow.leader_lease
    ADD CONSTRAINT leader_lease_pkey PRIMARY KEY (name);

ALTER TABLE ONLY forgeflow.nodes
    ADD CONSTRAINT nodes_pkey PRIMARY KEY (worker_id);

ALTER TABLE ONLY forgeflow.notices
    ADD CONSTRAINT notices_pkey PRIMARY KEY (id);

ALTER TABLE ONLY forgeflow.queues
    ADD CONSTRAINT queues_pkey PRIMARY KEY (tenant, name);

ALTER TABLE ONLY forgeflow.run_attempts
    ADD CONSTRAINT run_attempts_pkey PRIMARY KEY (run_id, attempt);

ALTER TABLE ONLY forgeflow.runs
    ADD CONSTRAINT runs_pkey PRIMARY KEY (id);

ALTER TABLE forgeflow.runs
    ADD CONSTRAINT runs_rules CHECK (forgeflow.forgeflow_run_rules(runs.*)) NOT VALID;

ALTER TABLE ONLY forgeflow.schema_release
    ADD CONSTRAINT schema_release_pkey PRIMARY KEY (id);

ALTER TABLE ONLY forgeflow.sequence_rechecks
    ADD CONSTRAINT sequence_rechecks_pkey PRIMARY KEY (sequence_key);

ALTER TABLE ONLY forgeflow.tenant_shares
    ADD CONSTRAINT tenant_shares_pkey PRIMARY KEY (tenant);

ALTER TABLE ONLY forgeflow.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (name);

ALTER TABLE ONLY forgeflow.worker_leases
    ADD CONSTRAINT worker_leases_pkey PRIMARY KEY (instance);

ALTER TABLE ONLY forgeflow.workflow_rechecks
    ADD CONSTRAINT workflow_rechecks_pkey PRIMARY KEY (job_id);

CREATE INDEX attempt_history_run_idx ON ONLY forgeflow.attempt_history USING btree (run_id, attempt);

CREATE INDEX backfills_job_idx ON forgeflow.backfills USING btree (job_id, id);

CREATE INDEX batches_open_idx ON forgeflow.batches USING btree (created_at, id) WHERE (completed_at IS NULL);

CREATE INDEX batches_tenant_idx ON forgeflow.batches USING btree (tenant, id DESC) WHERE (tenant <> 'default'::text);

CREATE INDEX job_dependencies_parent_idx ON forgeflow.job_dependencies USING btree (parent_id, job_id);

CREATE INDEX jobs_batch_idx ON forgeflow.jobs USING btree (batch_id, id) WHERE (batch_id IS NOT NULL);

CREATE INDEX jobs_batch_live_idx ON forgeflow.jobs USING btree (batch_id) WHERE ((batch_id IS NOT NULL) AND (status = ANY (ARRAY['active'::text, 'paused'::text])));

CREATE INDEX jobs_concurrency_key_idx ON forgeflow.jobs USING btree (concurrency_key, max_concurrent) WHERE ((concurrency_key IS NOT NULL) AND (status = ANY (ARRAY['active'::text, 'paused'::text])));

CREATE INDEX jobs_due_idx ON forgeflow.jobs USING btree (next_run_at) WHERE ((status = 'active'::text) AND (cron_expr IS NOT NULL));

CREATE UNIQUE INDEX jobs_idempotency_key_unique ON forgeflow.jobs USING btree (idempotency_key) WHERE (idempotency_key IS NOT NULL);

CREATE INDEX jobs_labels_idx ON forgeflow.jobs USING gin (labels jsonb_path_ops) WHERE (labels <> '{}'::jsonb);

CREATE INDEX jobs_name_prefix_idx ON forgeflow.jobs USING btree (name text_pattern_ops);

CREATE INDEX jobs_queue_id_idx ON forgeflow.jobs USING btree (queue, id DESC);

CREATE INDEX jobs_status_id_idx ON forgeflow.jobs USING btree (status, id DESC);

CREATE INDEX jobs_tenant_idx ON forgeflow.jobs USING btree (tenant, id DESC) WHERE (tenant <> 'default'::text);

CREATE INDEX queue_starts_tenant_queue_time_idx ON forgeflow.queue_starts USING btree (tenant, queue, started_at);

CREATE INDEX run_history_backfill_idx ON ONLY forgeflow.run_history USING btree (backfill_id, status) WHERE (backfill_id IS NOT NULL);

CREATE INDEX run_history_finished_idx ON ONLY forgeflow.run_history USING btree (finished_at);

CREATE INDEX run_history_id_idx ON ONLY forgeflow.run_history USING btree (id);

CREATE INDEX run_history_job_id_idx ON ONLY forgeflow.run_history USING btree (job_id, id DESC);

CREATE INDEX run_history_labels_idx ON ONLY forgeflow.run_history USING gin (labels jsonb_path_ops) WHERE (labels <> '{}'::jsonb);

CREATE INDEX run_history_queue_id_idx ON ONLY forgeflow.run_history USING btree (queue, id DESC) WHERE (queue <> 'default'::text);

CREATE INDEX run_history_scheduled_for_idx ON ONLY forgeflow.run_history USING btree (scheduled_for);

CREATE INDEX run_history_status_id_idx ON ONLY forgeflow.run_history USING btree (status, id DESC);

CREATE INDEX run_history_tick_idx ON ONLY forgeflow.run_history USING btree (job_id, fired_for) WHERE (fired_for IS NOT NULL);

CREATE INDEX runs_backfill_idx ON forgeflow.runs USING btree (backfill_id, status) WHERE (backfill_id IS NOT NULL);

CREATE INDEX runs_debounce_idx ON forgeflow.runs USING btree (debounce_key, id DESC) WHERE (debounce_key IS NOT NULL);

CREATE INDEX runs_finished_idx ON forgeflow.runs USING btree (finished_at) WHERE (status = ANY (ARRAY['succeeded'::text, 'dead'::text, 'cancelled'::text]));

CREATE INDEX runs_job_id_idx ON forgeflow.runs USING btree (job_id, id DESC);

CREATE UNIQUE INDEX runs_job_tick_unique ON forgeflow.runs USING btree (job_id, fired_for) WHERE (fired_for IS NOT NULL);

CREATE INDEX runs_labels_idx ON forgeflow.runs USING gin (labels jsonb_path_ops) WHERE (labels <> '{}'::jsonb);

CREATE INDEX runs_live_key_idx ON forgeflow.runs USING btree (concurrency_key, max_concurrent) WHERE ((status = ANY (ARRAY['pending'::text, 'running'::text])) AND (concurrency_key IS NOT NULL));

CREATE UNIQUE INDEX runs_live_unique_key ON forgeflow.runs USING btree (queue, unique_key) WHERE ((status = ANY (ARRAY['pending'::text, 'running'::text])) AND (unique_key IS NOT NULL));

CREATE INDEX runs_pending_keyed_idx ON forgeflow.runs USING btree (priority, scheduled_for, id) WHERE ((status = 'pending'::text) AND (concurrency_key IS NOT NULL));

CREATE INDEX runs_pending_queue_idx ON forgeflow.runs USING btree (priority, scheduled_for, id) WHERE (status = 'pending'::text);

CREATE INDEX runs_pending_tenant_idx ON forgeflow.runs USING btree (tenant, priority, scheduled_for, id) WHERE (status = 'pending'::text);

CREATE INDEX runs_pending_tenant_queue_idx ON forgeflow.runs USING btree (tenant, queue, priority, scheduled_for, id) WHERE (status = 'pending'::text);

CREATE INDEX runs_pending_throttled_idx ON forgeflow.runs USING btree (priority, scheduled_for, id) WHERE ((status = 'pending'::text) AND (throttle_key IS NOT NULL));

CREATE INDEX runs_queue_id_idx ON forgeflow.runs USING btree (queue, id DESC) WHERE (queue <> 'default'::text);

CREATE INDEX runs_running_lease_idx ON forgeflow.runs USING btree (lease_expires_at) WHERE (status = 'running'::text);

CREATE INDEX runs_running_queue_idx ON forgeflow.runs USING btree (queue) WHERE (status = 'running'::text);

CREATE INDEX runs_running_worker_idx ON forgeflow.runs USING btree (worker_id) WHERE (status = 'running'::text);

CREATE INDEX runs_scheduled_for_brin ON forgeflow.runs USING brin (scheduled_for) WITH (pages_per_range='16', autosummarize='on');

CREATE INDEX runs_sequence_idx ON forgeflow.runs USING btree (sequence_key, status, sequence_pos) WHERE (sequence_key IS NOT NULL);

CREATE INDEX runs_status_id_idx ON forgeflow.runs USING btree (status, id DESC);

CREATE INDEX tenant_starts_idx ON forgeflow.tenant_starts USING btree (tenant, started_at);

CREATE INDEX throttle_starts_expiry_idx ON forgeflow.throttle_starts USING btree (expires_at);

CREATE INDEX throttle_starts_key_idx ON forgeflow.throttle_starts USING btree (throttle_key, expires_at);

CREATE TRIGGER jobs_decide_children_on_removal BEFORE DELETE ON forgeflow.jobs FOR EACH ROW EXECUTE FUNCTION forgeflow.forgeflow_parent_removed_trigger();

CREATE TRIGGER run_attempts_final BEFORE UPDATE ON forgeflow.run_attempts FOR EACH ROW WHEN ((old.outcome IS NOT NULL)) EXECUTE FUNCTION forgeflow.run_attempts_reject_rewrite();

CREATE TRIGGER run_history_counted_delete AFTER DELETE ON forgeflow.run_history REFERENCING OLD TABLE AS history_removed FOR EACH STATEMENT EXECUTE FUNCTION forgeflow.forgeflow_history_counted();

CREATE TRIGGER run_history_counted_insert AFTER INSERT ON forgeflow.run_history REFERENCING NEW TABLE AS history_added FOR EACH STATEMENT EXECUTE FUNCTION forgeflow.forgeflow_history_counted();

CREATE TRIGGER run_history_counted_update AFTER UPDATE ON forgeflow.run_history REFERENCING OLD TABLE AS history_removed NEW TABLE AS history_added FOR EACH STATEMENT EXECUTE FUNCTION forgeflow.forgeflow_history_counted();

CREATE TRIGGER runs_decide_children AFTER UPDATE OF status ON forgeflow.runs FOR EACH ROW WHEN ((new.has_children AND (new.status = ANY (ARRAY['succeeded'::text, 'dead'::text, 'cancelled'::text])) AND (old.status <> new.status))) EXECUTE FUNCTION forgeflow.forgeflow_run_ended_trigger();

CREATE TRIGGER runs_sequence_admit BEFORE INSERT ON forgeflow.runs FOR EACH ROW WHEN ((new.sequence_key IS NOT NULL)) EXECUTE FUNCTION forgeflow.forgeflow_sequence_admit_trigger();

CREATE TRIGGER runs_sequence_advance AFTER UPDATE OF status ON forgeflow.runs FOR EACH ROW WHEN (((new.sequence_key IS NOT NULL) AND (old.status IS DISTINCT FROM new.status) AND (new.status = ANY (ARRAY['succeeded'::text, 'dead'::text, 'cancelled'::text, 'waiting'::text])))) EXECUTE FUNCTION forgeflow.forgeflow_sequence_moved_trigger();

CREATE TRIGGER runs_sequence_removed AFTER DELETE ON forgeflow.runs FOR EACH ROW WHEN (((old.sequence_key IS NOT NULL) AND (old.status = ANY (ARRAY['pending'::text, 'running'::text, 'dead'::text])))) EXECUTE FUNCTION forgeflow.forgeflow_sequence_moved_trigger();

CREATE TRIGGER runs_sequence_requeue BEFORE UPDATE OF status ON forgeflow.runs FOR EACH ROW WHEN (((new.sequence_key IS NOT NULL) AND (old.status = ANY (ARRAY['dead'::text, 'cancelled'::text])) AND (new.status = 'pending'::text))) EXECUTE FUNCTION forgeflow.forgeflow_sequence_requeue_trigger();

ALTER TABLE ONLY forgeflow.backfills
    ADD CONSTRAINT backfills_job_id_fkey FOREIGN KEY (job_id) REFERENCES forgeflow.jobs(id) ON DELETE CASCADE;

ALTER TABLE ONLY forgeflow.job_dependencies
    ADD CONSTRAINT job_dependencies_job_id_fkey FOREIGN KEY (job_id) REFERENCES forgeflow.jobs(id) ON DELETE CASCADE;

ALTER TABLE ONLY forgeflow.job_dependencies
    ADD CONSTRAINT job_dependencies_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES forgeflow.jobs(id) ON DELETE CASCADE;

ALTER TABLE ONLY forgeflow.run_attempts
    ADD CONSTRAINT run_attempts_run_id_fkey FOREIGN KEY (run_id) REFERENCES forgeflow.runs(id) ON DELETE CASCADE;

ALTER TABLE ONLY forgeflow.runs
    ADD CONSTRAINT runs_job_id_fkey FOREIGN KEY (job_id) REFERENCES forgeflow.jobs(id) ON DELETE CASCADE;
