--liquibase formatted sql

-- Issue 40: runs' 10 CHECK constraints become one, runs_rules, which calls forgeflow_run_rules (its rules keep their
-- names), as 0030 did for jobs: about 20 us less per statement that writes runs (docs/BENCHMARKS.md, "Issue 40,
-- twelfth session"). NOT VALID, so no scan under the lock: every stored row kept the same rules under the
-- constraints dropped in the same statement. One short ACCESS EXCLUSIVE lock on runs. Nodes of earlier releases are
-- unaffected: none names a check constraint. The rollback restores the 10, NOT VALID.

--changeset forgeflow:0032-run-rules-in-one-check
ALTER TABLE runs ADD CONSTRAINT runs_rules CHECK (forgeflow_run_rules(runs)) NOT VALID,
    DROP CONSTRAINT runs_attempt_non_negative,
    DROP CONSTRAINT runs_key_has_limit,
    DROP CONSTRAINT runs_max_attempts_positive,
    DROP CONSTRAINT runs_priority_range,
    DROP CONSTRAINT runs_retry_base_at_most_max,
    DROP CONSTRAINT runs_retry_base_range,
    DROP CONSTRAINT runs_retry_max_range,
    DROP CONSTRAINT runs_running_is_leased,
    DROP CONSTRAINT runs_status_values,
    DROP CONSTRAINT runs_timeout_range;
--rollback ALTER TABLE runs DROP CONSTRAINT runs_rules, ADD CONSTRAINT runs_attempt_non_negative CHECK ((attempt >= 0)) NOT VALID, ADD CONSTRAINT runs_key_has_limit CHECK (((concurrency_key IS NULL) = (max_concurrent IS NULL))) NOT VALID, ADD CONSTRAINT runs_max_attempts_positive CHECK ((max_attempts >= 1)) NOT VALID, ADD CONSTRAINT runs_priority_range CHECK (((priority >= 1) AND (priority <= 9))) NOT VALID, ADD CONSTRAINT runs_retry_base_at_most_max CHECK ((retry_base_seconds <= retry_max_seconds)) NOT VALID, ADD CONSTRAINT runs_retry_base_range CHECK (((retry_base_seconds >= 1) AND (retry_base_seconds <= 86400))) NOT VALID, ADD CONSTRAINT runs_retry_max_range CHECK (((retry_max_seconds >= 1) AND (retry_max_seconds <= 86400))) NOT VALID, ADD CONSTRAINT runs_running_is_leased CHECK (((status = 'running'::text) = ((worker_id IS NOT NULL) AND (lease_expires_at IS NOT NULL)))) NOT VALID, ADD CONSTRAINT runs_status_values CHECK ((status = ANY (ARRAY['waiting'::text, 'pending'::text, 'running'::text, 'succeeded'::text, 'dead'::text, 'cancelled'::text]))) NOT VALID, ADD CONSTRAINT runs_timeout_range CHECK (((timeout_seconds >= 1) AND (timeout_seconds <= 86400))) NOT VALID;
