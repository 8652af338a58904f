--liquibase formatted sql

-- Debounce and throttle (issue 44, docs/API.md "Flow control"). Debounce is decided at submission, in the
-- submitter's transaction, under the key's transaction-level advisory lock (20423, hashtext(key)): every submission
-- path (POST /api/jobs and gRPC through the repository, enqueue()) calls forgeflow_debounce_absorb before it stores
-- anything, and forgeflow_debounce_start on the run it stored when nothing absorbed it. Submissions of one key are
-- therefore ordered by the lock, and each sees the run the previous one committed (READ COMMITTED). A trailing run
-- absorbs only while it is pending and has never started: its row lock (FOR UPDATE, not skipped) orders the
-- absorption against a claim, which skips a locked row; a run a claim took first absorbs nothing and a new run is
-- made. Throttle is decided by the claim (forgeflow_claim.sql); forgeflow_throttle_sweep clears expired starts.
-- Edited in place (runOnChange).

--changeset forgeflow:function-forgeflow_flow runOnChange:true splitStatements:false
-- The run that absorbs a submission of p_debounce's key and executor, if any (nothing: store a new job and run, then
-- call forgeflow_debounce_start). Trailing: the key's newest run when it is pending, never started, and its max wait
-- has not passed; it takes p_payload (job and run) and is due at now + period, never after its max wait. Leading:
-- the key's newest run when its period has not passed since it was submitted; nothing on it changes.
CREATE OR REPLACE FUNCTION forgeflow_debounce_absorb(p_debounce jsonb, p_executor text, p_payload jsonb)
    RETURNS TABLE (job_id uuid, run_id uuid)
    LANGUAGE plpgsql VOLATILE AS $$
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

-- A debounced submission's new run: its key and window, and (trailing) due when the period ends.
CREATE OR REPLACE FUNCTION forgeflow_debounce_start(p_run uuid) RETURNS void
    LANGUAGE plpgsql VOLATILE AS $$
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

-- The leader's sweep of throttle windows that ended: an idle key keeps no rows. Returns how many it removed.
CREATE OR REPLACE FUNCTION forgeflow_throttle_sweep(p_limit integer) RETURNS integer
    LANGUAGE plpgsql VOLATILE AS $$
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
-- enqueue()'s debounce argument checked as the API checks it (Debounce.validate; SQLSTATE 22023 naming the part),
-- with its defaults: the stored form, or null for none.
CREATE OR REPLACE FUNCTION forgeflow_debounce_checked(p jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE AS $$
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

-- enqueue()'s throttle argument checked as the API checks it (Throttle.validate): the stored form, or null.
CREATE OR REPLACE FUNCTION forgeflow_throttle_checked(p jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE AS $$
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

CREATE OR REPLACE FUNCTION forgeflow_flow_key(p jsonb, p_field text, p_example text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF jsonb_typeof(p -> 'key') IS DISTINCT FROM 'string' OR btrim(p ->> 'key') = ''
       OR char_length(p ->> 'key') > 200 OR (p ->> 'key') ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION '%.key is required: 1 to 200 characters, not blank and without control characters, e.g. %', p_field, p_example
            USING ERRCODE = '22023', COLUMN = p_field || '.key';
    END IF;
    RETURN p ->> 'key';
END
$$;

CREATE OR REPLACE FUNCTION forgeflow_flow_int(p jsonb, p_field text, p_part text, p_min integer, p_max integer,
                                              p_required boolean) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE AS $$
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
-- enqueue()'s notify argument checked as the API checks it (Notify.validate: an absolute http(s) URL of at most
-- 2,000 characters with a host, events of dead, paused, recovered; SQLSTATE 22023 naming notify.url or notify.on):
-- the stored form, events in the API's order, or null. The http executor's guard judges the address when a notice is
-- sent (a literal private address, refused by the API at submission, ends that notice's run dead here).
CREATE OR REPLACE FUNCTION forgeflow_notify_checked(p jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE AS $$
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
--rollback DROP FUNCTION forgeflow_notify_checked(jsonb); DROP FUNCTION forgeflow_flow_int(jsonb, text, text, integer, integer, boolean); DROP FUNCTION forgeflow_flow_key(jsonb, text, text); DROP FUNCTION forgeflow_throttle_checked(jsonb); DROP FUNCTION forgeflow_debounce_checked(jsonb); DROP FUNCTION forgeflow_throttle_sweep(integer); DROP FUNCTION forgeflow_debounce_start(uuid); DROP FUNCTION forgeflow_debounce_absorb(jsonb, text, jsonb);
