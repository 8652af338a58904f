--liquibase formatted sql

-- Labels and list filters (issue 27). A job's labels (an object of string to string, checked by the API and by
-- enqueue()) are copied to each run when the run is inserted, so runs filter by label without a join. Indexes serve
-- the filters of GET /api/jobs and GET /api/runs (docs/API.md, "Filters"); on runs, each is partial or a BRIN so that
-- the worker's writes of the common run (unlabelled, in the default queue) do not maintain it. A plain CREATE INDEX:
-- on a large runs table, writes to runs wait while these are built during the upgrade.

--changeset forgeflow:0013-labels-columns
ALTER TABLE jobs ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE jobs ADD CONSTRAINT jobs_labels_object CHECK (jsonb_typeof(labels) = 'object');
ALTER TABLE runs ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'::jsonb;
--rollback ALTER TABLE runs DROP COLUMN labels; ALTER TABLE jobs DROP COLUMN labels;

--changeset forgeflow:0013-filter-indexes
-- label=key:value (labels @> '{"key": "value"}'): only labelled rows are in these
CREATE INDEX jobs_labels_idx ON jobs USING gin (labels jsonb_path_ops) WHERE labels <> '{}'::jsonb;
CREATE INDEX runs_labels_idx ON runs USING gin (labels jsonb_path_ops) WHERE labels <> '{}'::jsonb;
-- queue=: a page of a named queue, newest first; runs of the default queue are found by the primary key
CREATE INDEX jobs_queue_id_idx ON jobs (queue, id DESC);
CREATE INDEX runs_queue_id_idx ON runs (queue, id DESC) WHERE queue <> 'default';
-- name_prefix= (name LIKE 'prefix%')
CREATE INDEX jobs_name_prefix_idx ON jobs (name text_pattern_ops);
-- scheduled_after= / scheduled_before=: runs are written roughly in the order they are due, so block ranges suffice; a
-- filled range is summarized in the background (autosummarize), without which a new range matches every query
CREATE INDEX runs_scheduled_for_brin ON runs USING brin (scheduled_for) WITH (pages_per_range = 16, autosummarize = on);
--rollback DROP INDEX runs_scheduled_for_brin; DROP INDEX jobs_name_prefix_idx; DROP INDEX runs_queue_id_idx; DROP INDEX jobs_queue_id_idx; DROP INDEX runs_labels_idx; DROP INDEX jobs_labels_idx;
