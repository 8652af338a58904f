--liquibase formatted sql

-- Wake-ups for enqueue() that do not serialise the applications' commits (issue 40; README "From your
-- application's transaction").
--
-- PostgreSQL serialises the commits of transactions that NOTIFY (one global lock, held through the commit's WAL
-- flush): 16 application sessions that each enqueue and commit ran at half the rate they reach without it. So:
-- - A worker node that hears SQL wake-ups often (SqlEnqueueWatch) promises to look for new runs every few
--   milliseconds, in forgeflow_sql_watch (epoch ms), renewed while it watches.
-- - enqueue() reads the promise. None standing: it notifies as before (forgeflow_due 'sql', and the run's pending
--   change on forgeflow_runs). One standing: it takes the shared advisory lock (FFSq, 1) for its transaction, reads
--   the promise again, and if it still stands sends nothing (and counts itself in forgeflow_sql_silent).
-- - A watching node ends its watch only after its promise has run out and forgeflow_watch_sql() found the lock free:
--   every enqueue that kept silent has then committed or rolled back, and the node claims once more. An enqueue that
--   took the lock after that check reads the promise after it, finds it run out, and notifies.
-- Lock order: enqueue() takes the shared lock after its rows (no other lock of ours waits on it); the node's
-- exclusive try never waits and is held only for its own statement.

--changeset forgeflow:function-forgeflow_watch_sql runOnChange:true splitStatements:false
-- forgeflow_watch_sql(p_promise_ms): one tick of a node's watch. With p_promise_ms > 0 it promises (or extends the
-- promise) to look again within that long. Answers whether an enqueue that kept silent is still open, how many have
-- kept silent so far (a count that only grows), and whether any node's promise stands. Call it in a transaction of its own
-- (auto-commit): the lock it tries is the transaction's.
CREATE OR REPLACE FUNCTION forgeflow_watch_sql(p_promise_ms integer)
    RETURNS TABLE (open boolean, silent bigint, watched boolean)
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
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
--rollback DROP FUNCTION forgeflow_watch_sql(integer);
