--liquibase formatted sql

-- Issue 44: a run may end an attempt by snoozing (back to pending after the snooze it asked for, the attempt not
-- counted against its budget) or by giving up (cancelled with its reason). Both are attempt outcomes of their own;
-- runs.snoozes counts a run's snoozes (only forgeflow_end_attempts raises it). A NOT NULL column with a constant
-- default and no CHECK is a catalogue change only (no table scan); the outcome constraint is swapped NOT VALID, then validated without blocking writers.

--changeset forgeflow:0020-a-snooze-and-give-up splitStatements:false
ALTER TABLE runs ADD COLUMN snoozes integer NOT NULL DEFAULT 0;
ALTER TABLE run_attempts DROP CONSTRAINT run_attempts_outcome_values;
ALTER TABLE run_attempts ADD CONSTRAINT run_attempts_outcome_values
    CHECK (outcome IN ('succeeded', 'failed', 'timed_out', 'lease_expired', 'cancelled', 'released', 'snoozed',
                       'gave_up')) NOT VALID;
ALTER TABLE run_attempts VALIDATE CONSTRAINT run_attempts_outcome_values;
--rollback ALTER TABLE run_attempts DROP CONSTRAINT run_attempts_outcome_values; ALTER TABLE run_attempts ADD CONSTRAINT run_attempts_outcome_values CHECK (outcome IN ('succeeded', 'failed', 'timed_out', 'lease_expired', 'cancelled', 'released')); ALTER TABLE runs DROP COLUMN snoozes;
