--liquibase formatted sql

-- A worker whose lanes name queues (FORGEFLOW_QUEUES) claims from those queues' pending runs alone: the claim read
-- every due run of its tenant through runs_pending_tenant_idx and filtered on queue, so it paid for the backlog of
-- queues it never takes. runs_pending_by_queue_idx (0004) becomes tenant-led, so the include path, the guarded probes
-- and candidates, and a queue's depth (QueueSql/get.sql) give the tenant as an index condition; the number of indexes
-- on runs stays the same. Plain CREATE INDEX, as 0029's: writes to runs wait while it is built over the pending runs.

--changeset forgeflow:0031-claim-by-queue
CREATE INDEX runs_pending_tenant_queue_idx ON runs (tenant, queue, priority, scheduled_for, id) WHERE status = 'pending';
DROP INDEX runs_pending_by_queue_idx;
--rollback CREATE INDEX runs_pending_by_queue_idx ON runs (queue, priority, scheduled_for, id) WHERE status = 'pending'; DROP INDEX runs_pending_tenant_queue_idx;
