--liquibase formatted sql

-- A retry policy per job (issue 28): the backoff base and cap in seconds, stored with the job and copied onto its runs
-- (as queue and priority are) by every insert, and onto its pending runs by a PATCH that lets them follow. Null is the
-- deciding node's default (FORGEFLOW_RETRY_BASE / FORGEFLOW_RETRY_MAX), so existing rows keep today's behaviour.

--changeset forgeflow:0012-retry-per-job
ALTER TABLE jobs
    ADD COLUMN retry_base_seconds integer
        CONSTRAINT jobs_retry_base_range CHECK (retry_base_seconds BETWEEN 1 AND 86400),
    ADD COLUMN retry_max_seconds integer
        CONSTRAINT jobs_retry_max_range CHECK (retry_max_seconds BETWEEN 1 AND 86400),
    ADD CONSTRAINT jobs_retry_base_at_most_max CHECK (retry_base_seconds <= retry_max_seconds);
ALTER TABLE runs
    ADD COLUMN retry_base_seconds integer
        CONSTRAINT runs_retry_base_range CHECK (retry_base_seconds BETWEEN 1 AND 86400),
    ADD COLUMN retry_max_seconds integer
        CONSTRAINT runs_retry_max_range CHECK (retry_max_seconds BETWEEN 1 AND 86400),
    ADD CONSTRAINT runs_retry_base_at_most_max CHECK (retry_base_seconds <= retry_max_seconds);
--rollback ALTER TABLE runs DROP COLUMN retry_base_seconds, DROP COLUMN retry_max_seconds;
--rollback ALTER TABLE jobs DROP COLUMN retry_base_seconds, DROP COLUMN retry_max_seconds;
