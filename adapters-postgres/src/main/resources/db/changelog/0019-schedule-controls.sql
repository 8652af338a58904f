--liquibase formatted sql

-- Schedules an operator can steer (issue 45): a recurring job's window (start_at, end_at), its limit of runs
-- (max_runs, counted in fired_runs by every tick that inserts a run), the spread of each tick's run (jitter_seconds,
-- computed by the scheduler from a hash of job and tick), after how many dead runs in a row it pauses
-- (pause_after_failures), and the note and author of a pause (paused_note, paused_by; cleared by any other status
-- change). Existing rows keep today's behaviour: no window, no limit, no jitter.

--changeset forgeflow:0019-schedule-controls
ALTER TABLE jobs
    ADD COLUMN start_at timestamptz,
    ADD COLUMN end_at timestamptz,
    ADD COLUMN max_runs integer
        CONSTRAINT jobs_max_runs_range CHECK (max_runs BETWEEN 1 AND 1000000),
    ADD COLUMN jitter_seconds integer NOT NULL DEFAULT 0
        CONSTRAINT jobs_jitter_range CHECK (jitter_seconds BETWEEN 0 AND 86400),
    ADD COLUMN pause_after_failures integer
        CONSTRAINT jobs_pause_after_failures_range CHECK (pause_after_failures BETWEEN 1 AND 1000),
    ADD COLUMN fired_runs integer NOT NULL DEFAULT 0
        CONSTRAINT jobs_fired_runs_positive CHECK (fired_runs >= 0),
    ADD COLUMN paused_note text
        CONSTRAINT jobs_paused_note_length CHECK (char_length(paused_note) BETWEEN 1 AND 500),
    ADD COLUMN paused_by text
        CONSTRAINT jobs_paused_by_length CHECK (char_length(paused_by) BETWEEN 1 AND 200),
    ADD CONSTRAINT jobs_window_order CHECK (end_at > start_at),
    ADD CONSTRAINT jobs_controls_recurring CHECK (cron_expr IS NOT NULL OR (start_at IS NULL AND end_at IS NULL
        AND max_runs IS NULL AND jitter_seconds = 0 AND pause_after_failures IS NULL));
--rollback ALTER TABLE jobs DROP COLUMN start_at, DROP COLUMN end_at, DROP COLUMN max_runs, DROP COLUMN jitter_seconds, DROP COLUMN pause_after_failures, DROP COLUMN fired_runs, DROP COLUMN paused_note, DROP COLUMN paused_by;

-- Backfills (issue 45): one run per tick of a range, each run's fired_for its tick (so the unique index on (job_id,
-- fired_for) keeps a tick to one run and a second backfill adds nothing), grouped by backfill_id so that the
-- backfill's progress is the count of its runs by status. A backfill row stays while its job does.

--changeset forgeflow:0019-backfills
CREATE TABLE backfills (
    id         uuid PRIMARY KEY,
    job_id     uuid        NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    from_tick  timestamptz NOT NULL,
    to_tick    timestamptz NOT NULL,
    overlap    text        NOT NULL CONSTRAINT backfills_overlap_values CHECK (overlap IN ('allow', 'skip', 'queue_one')),
    ticks      integer     NOT NULL CONSTRAINT backfills_ticks_range CHECK (ticks BETWEEN 0 AND 10000),
    created    integer     NOT NULL CONSTRAINT backfills_created_range CHECK (created BETWEEN 0 AND ticks),
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT backfills_range_order CHECK (to_tick >= from_tick)
);
CREATE INDEX backfills_job_idx ON backfills (job_id, id);
ALTER TABLE runs ADD COLUMN backfill_id uuid;
CREATE INDEX runs_backfill_idx ON runs (backfill_id, status) WHERE backfill_id IS NOT NULL;
--rollback DROP INDEX runs_backfill_idx; ALTER TABLE runs DROP COLUMN backfill_id; DROP TABLE backfills;
