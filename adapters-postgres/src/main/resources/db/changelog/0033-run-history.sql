--liquibase formatted sql

-- Issue 46: finished history in time partitions. The leader moves runs that finished more than a grace period ago
-- (FORGEFLOW_HISTORY_AFTER), with their attempts, from runs and run_attempts into run_history and attempt_history,
-- partitioned by day of the run's finished_at; retention then drops whole partitions. runs keeps live and recently
-- finished runs, so the claim, heartbeats, lease recovery and their plans are untouched. Readers of finished runs read
-- all_runs (runs, then run_history). The columns of run_history are those of runs in the same order (LIKE), and
-- attempt_history's those of run_attempts plus run_finished_at, its partition key; RunHistoryIT keeps them so. In
-- run_history, worker_id is the worker of the run's last attempt (a finished run in runs finds it in run_attempts).
-- New tables only: no lock on runs. Nodes record whether they read history (history_reader: their version), and
-- nothing moves while a live node does not.

--changeset forgeflow:0033-run-history
CREATE TABLE run_history (LIKE runs INCLUDING DEFAULTS) PARTITION BY RANGE (finished_at);
ALTER TABLE run_history ALTER COLUMN finished_at SET NOT NULL;
CREATE INDEX run_history_id_idx ON run_history (id);
CREATE INDEX run_history_job_id_idx ON run_history (job_id, id DESC);
CREATE INDEX run_history_status_id_idx ON run_history (status, id DESC);
CREATE INDEX run_history_queue_id_idx ON run_history (queue, id DESC) WHERE queue <> 'default';
CREATE INDEX run_history_labels_idx ON run_history USING gin (labels jsonb_path_ops) WHERE labels <> '{}'::jsonb;
CREATE INDEX run_history_finished_idx ON run_history (finished_at);
-- a b-tree, not runs' BRIN: it is written once per run, and the planner can read its actual ends, so a filter
-- beyond them is known to match nothing (with BRIN it walked every partition by id for 'scheduled_after' the newest)
CREATE INDEX run_history_scheduled_for_idx ON run_history (scheduled_for);
CREATE INDEX run_history_tick_idx ON run_history (job_id, fired_for) WHERE fired_for IS NOT NULL;
CREATE INDEX run_history_backfill_idx ON run_history (backfill_id, status) WHERE backfill_id IS NOT NULL;
CREATE TABLE attempt_history (LIKE run_attempts INCLUDING DEFAULTS, run_finished_at timestamptz NOT NULL)
    PARTITION BY RANGE (run_finished_at);
CREATE INDEX attempt_history_run_idx ON attempt_history (run_id, attempt);
CREATE VIEW all_runs AS
    SELECT * FROM runs
    UNION ALL
    SELECT * FROM run_history;
-- per day of history, the newest run id it holds (or held: an upper bound), kept by the move, so that a list page
-- reads the days newest first and stops without probing each one (forgeflow_history_page)
CREATE TABLE history_days (day date PRIMARY KEY, newest_id uuid NOT NULL);
ALTER TABLE nodes ADD COLUMN history_reader text;
--rollback INSERT INTO runs SELECT r.* FROM run_history h, LATERAL jsonb_populate_record(NULL::runs, to_jsonb(h) || '{"worker_id": null}') r; INSERT INTO run_attempts SELECT a.* FROM attempt_history x, LATERAL jsonb_populate_record(NULL::run_attempts, to_jsonb(x)) a; DROP VIEW all_runs; DROP TABLE history_days; DROP TABLE attempt_history; DROP TABLE run_history; ALTER TABLE nodes DROP COLUMN history_reader;
