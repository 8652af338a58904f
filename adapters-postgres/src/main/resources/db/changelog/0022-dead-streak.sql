--liquibase formatted sql

-- pause_after_failures (issue 45) enforced: dead runs in a row of a recurring job that has the control, counted by
-- forgeflow_end_attempts as its runs end (a success sets it back to 0, a resume too); the job is paused, with the
-- scheduler as its author and a note, when the count reaches pause_after_failures. Only such jobs' rows are written.

--changeset forgeflow:0022-dead-streak
ALTER TABLE jobs ADD COLUMN dead_streak integer NOT NULL DEFAULT 0 CONSTRAINT jobs_dead_streak_positive CHECK (dead_streak >= 0);
--rollback ALTER TABLE jobs DROP COLUMN dead_streak;
