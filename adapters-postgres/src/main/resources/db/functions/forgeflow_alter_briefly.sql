--liquibase formatted sql

-- forgeflow_alter_briefly(p_table, p_sql, p_give_up_after): runs p_sql (a migration's ALTER TABLE on p_table) under
-- brief lock waits. An ALTER TABLE waits for every transaction that has touched the table (an application's
-- transaction that called enqueue() and stays open, say), and while it waits every other session's access to the
-- table queues behind it: one open transaction would stall the whole cluster for as long as it stays open. Here each
-- try waits at most 100 ms for the lock, then lets the queue go for 200-500 ms and tries again, until it gets the
-- lock or p_give_up_after has passed; then it fails naming the sessions that held locks on the table (the node's
-- start fails and is retried; nothing was changed). Used by migrations that alter a hot table (0030, 0032).

--changeset forgeflow:function-forgeflow_alter_briefly runOnChange:true splitStatements:false
CREATE OR REPLACE FUNCTION forgeflow_alter_briefly(p_table regclass, p_sql text,
                                                   p_give_up_after interval DEFAULT interval '10 minutes')
    RETURNS void
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_until   timestamptz := clock_timestamp() + p_give_up_after;
    v_was     text := current_setting('lock_timeout');
    v_holders text;
BEGIN
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout', '100ms', true);
            EXECUTE p_sql;
            PERFORM set_config('lock_timeout', v_was, true);
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            IF clock_timestamp() >= v_until THEN
                SELECT string_agg(DISTINCT format('pid %s (%s, transaction open since %s)', a.pid,
                                                  coalesce(nullif(a.application_name, ''), 'no application_name'),
                                                  a.xact_start), '; ')
                INTO v_holders
                FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.relation = p_table AND l.granted AND l.pid <> pg_backend_pid();
                RAISE EXCEPTION 'could not lock % for a migration within %: %', p_table, p_give_up_after,
                    coalesce(v_holders, 'no session holds it now')
                    USING ERRCODE = 'lock_not_available',
                          HINT = 'end or commit those transactions, then start the node (or db migrate) again';
            END IF;
        END;
        PERFORM pg_sleep(0.2 + random() * 0.3);
    END LOOP;
END
$$;
