--liquibase formatted sql

-- Issue 46: /api/stats and the metrics counted every finished run in history (count(*) over all_runs), O(rows) at each
-- scrape. history_counts keeps the history's runs per partition, tenant and status, by statement triggers on
-- run_history (forgeflow_history_counts.sql), so readers add up a few rows. Counted once here, with run_history's
-- writers held off by a lock (the leader's move waits for it: the runner takes it 100 ms at a time).

--changeset forgeflow:0035-history-counts splitStatements:false
CREATE TABLE history_counts (
    day    date   NOT NULL,
    tenant text   NOT NULL,
    status text   NOT NULL,
    runs   bigint NOT NULL,
    PRIMARY KEY (day, tenant, status)
);
LOCK TABLE run_history IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER run_history_counted_insert AFTER INSERT ON run_history REFERENCING NEW TABLE AS history_added
    FOR EACH STATEMENT EXECUTE FUNCTION forgeflow_history_counted();
CREATE TRIGGER run_history_counted_delete AFTER DELETE ON run_history REFERENCING OLD TABLE AS history_removed
    FOR EACH STATEMENT EXECUTE FUNCTION forgeflow_history_counted();
CREATE TRIGGER run_history_counted_update AFTER UPDATE ON run_history
    REFERENCING OLD TABLE AS history_removed NEW TABLE AS history_added
    FOR EACH STATEMENT EXECUTE FUNCTION forgeflow_history_counted();
INSERT INTO history_counts (day, tenant, status, runs)
SELECT (b.lower_at AT TIME ZONE 'UTC')::date, h.tenant, h.status, count(*)
FROM run_history h
JOIN forgeflow_history_bounds() b ON h.finished_at >= b.lower_at AND h.finished_at < b.upper_at
GROUP BY 1, 2, 3;
--rollback DROP TRIGGER run_history_counted_insert ON run_history; DROP TRIGGER run_history_counted_delete ON run_history; DROP TRIGGER run_history_counted_update ON run_history; DROP TABLE history_counts;
