--liquibase formatted sql

-- Edit and delete jobs (issue 27). A deleted job is a tombstone (status 'deleted'): out of the lists, no runs to
-- come, its finished runs still name it until retention deletes them and then it, or a purge removes it with them.

--changeset forgeflow:0011-jobs-deleted-status
ALTER TABLE jobs DROP CONSTRAINT jobs_status_values;
ALTER TABLE jobs ADD CONSTRAINT jobs_status_values
    CHECK (status IN ('active', 'paused', 'cancelled', 'completed', 'deleted'));
--rollback ALTER TABLE jobs DROP CONSTRAINT jobs_status_values; ALTER TABLE jobs ADD CONSTRAINT jobs_status_values CHECK (status IN ('active', 'paused', 'cancelled', 'completed'));
