--liquibase formatted sql

-- Sequences (issue 44): the runs of one-off jobs with one sequence_key start one at a time, in submission order. The
-- head of a sequence is its one run that is pending or running (a retry keeps it pending: it holds the sequence);
-- every later run waits in status 'waiting' (no claim reads it). When the head ends (succeeded, cancelled, or dead
-- with on_dead 'continue') the first waiting run by sequence_pos becomes pending; a dead head with on_dead 'block'
-- holds the sequence until it is requeued. Locks: the key's transaction-level advisory lock (20419, hashtext(key)).
-- A submitter (every insert path: POST /api/jobs, batches, enqueue(), triggers) waits for it, so submissions of one
-- key are ordered by it and a second submitter sees the first one's run once it commits; the engine's side (the end
-- of an attempt, a cancel) only tries it: when a submitter holds it, the key goes to sequence_rechecks and the
-- leader's sweep (forgeflow_sequence_recheck, called from forgeflow_recheck_children) advances it after that
-- submitter commits. Its row lock on the waiting run is likewise taken with SKIP LOCKED. Runs without a key: every
-- trigger here is gated by sequence_key IS NOT NULL in its WHEN clause (one test per inserted or changed run).
-- Edited in place (runOnChange).

--changeset forgeflow:function-forgeflow_sequences runOnChange:true splitStatements:false
-- whether the sequence has a head (pending or running), a blocker (dead, on_dead block) or runs waiting, besides p_except
CREATE OR REPLACE FUNCTION forgeflow_sequence_busy(p_key text, p_except uuid) RETURNS boolean
    LANGUAGE sql STABLE AS $$
SELECT EXISTS (SELECT 1 FROM runs r
               WHERE r.sequence_key = p_key AND r.status IN ('waiting', 'pending', 'running')
                 AND r.id IS DISTINCT FROM p_except)
    OR EXISTS (SELECT 1 FROM runs r
               WHERE r.sequence_key = p_key AND r.status = 'dead' AND r.sequence_on_dead = 'block'
                 AND r.id IS DISTINCT FROM p_except)
$$;

-- Makes the first waiting run of the sequence its head when it has none and nothing blocks it. Returns false when it
-- could not decide now (a submitter holds the key, or someone the first waiting run's row): the key is then queued for
-- the leader's sweep. Never waits on a lock.
CREATE OR REPLACE FUNCTION forgeflow_sequence_advance(p_key text) RETURNS boolean
    LANGUAGE plpgsql VOLATILE AS $$
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
    -- due now at the earliest (as a workflow's child): a claimer reading past its last claimed run sees it
    UPDATE runs r SET status = 'pending', scheduled_for = greatest(r.scheduled_for, now())
    WHERE r.id = v_next AND r.status = 'waiting'
    RETURNING r.job_id INTO v_job;
    PERFORM pg_notify('forgeflow_runs', v_next || ',' || v_job || ',pending,0,'
                      || floor(extract(epoch FROM now()) * 1000)::bigint || ',');
    PERFORM pg_notify('forgeflow_due', '');
    RETURN true;
END
$$;

-- The leader's sweep of the keys the engine could not advance; returns how many it advanced.
CREATE OR REPLACE FUNCTION forgeflow_sequence_recheck(p_limit integer) RETURNS integer
    LANGUAGE plpgsql VOLATILE AS $$
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

-- A new run with a key: its place in the sequence, taken under the key's lock, and 'waiting' behind a busy sequence.
-- Needs READ COMMITTED: each statement must see the runs a previous holder of the lock committed.
CREATE OR REPLACE FUNCTION forgeflow_sequence_admit_trigger() RETURNS trigger
    LANGUAGE plpgsql VOLATILE AS $$
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

DROP TRIGGER IF EXISTS runs_sequence_admit ON runs;
CREATE TRIGGER runs_sequence_admit
    BEFORE INSERT ON runs
    FOR EACH ROW
    WHEN (NEW.sequence_key IS NOT NULL)
    EXECUTE FUNCTION forgeflow_sequence_admit_trigger();

-- A requeued run of a sequence (dead or cancelled -> pending) waits for its turn at its old place; the trigger below
-- then lets it go when the sequence has no head (a blocker requeued goes first again).
CREATE OR REPLACE FUNCTION forgeflow_sequence_requeue_trigger() RETURNS trigger
    LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    NEW.status := 'waiting';
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS runs_sequence_requeue ON runs;
CREATE TRIGGER runs_sequence_requeue
    BEFORE UPDATE OF status ON runs
    FOR EACH ROW
    WHEN (NEW.sequence_key IS NOT NULL AND OLD.status IN ('dead', 'cancelled') AND NEW.status = 'pending')
    EXECUTE FUNCTION forgeflow_sequence_requeue_trigger();

CREATE OR REPLACE FUNCTION forgeflow_sequence_moved_trigger() RETURNS trigger
    LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM forgeflow_sequence_advance(OLD.sequence_key);
    ELSE
        PERFORM forgeflow_sequence_advance(NEW.sequence_key);
    END IF;
    RETURN NULL;
END
$$;

-- the head ended, a waiting run was cancelled, a run was requeued: the sequence may go on
DROP TRIGGER IF EXISTS runs_sequence_advance ON runs;
CREATE TRIGGER runs_sequence_advance
    AFTER UPDATE OF status ON runs
    FOR EACH ROW
    WHEN (NEW.sequence_key IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status
          AND NEW.status IN ('succeeded', 'dead', 'cancelled', 'waiting'))
    EXECUTE FUNCTION forgeflow_sequence_moved_trigger();

-- a run removed for good (a purge, retention) may have been the head or the blocker
DROP TRIGGER IF EXISTS runs_sequence_removed ON runs;
CREATE TRIGGER runs_sequence_removed
    AFTER DELETE ON runs
    FOR EACH ROW
    WHEN (OLD.sequence_key IS NOT NULL AND OLD.status IN ('pending', 'running', 'dead'))
    EXECUTE FUNCTION forgeflow_sequence_moved_trigger();
--rollback DROP TRIGGER IF EXISTS runs_sequence_removed ON runs; DROP TRIGGER IF EXISTS runs_sequence_advance ON runs; DROP FUNCTION forgeflow_sequence_moved_trigger(); DROP TRIGGER IF EXISTS runs_sequence_requeue ON runs; DROP FUNCTION forgeflow_sequence_requeue_trigger(); DROP TRIGGER IF EXISTS runs_sequence_admit ON runs; DROP FUNCTION forgeflow_sequence_admit_trigger(); DROP FUNCTION forgeflow_sequence_recheck(integer); DROP FUNCTION forgeflow_sequence_advance(text); DROP FUNCTION forgeflow_sequence_busy(text, uuid);
