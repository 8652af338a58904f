-- acknowledge: one call for a whole batch of acknowledgements, into forgeflow_acknowledge
-- (db/changelog/0006-acknowledge-function.sql), which runs the statement on its generic plan. Each row is fenced by
-- (id, status = running, worker_id, attempt); a stale fence (a lost lease) matches nothing and changes nothing. Runs
-- are locked in id order, as heartbeat and job cancellation do, so concurrent multi-row writers cannot deadlock; the
-- same statement finishes the attempt rows (only while they have no outcome) and completes one-off jobs whose run
-- ended, always locking runs before jobs (as changeStatus does). It returns the applied fences with each run's job
-- and new status (for the node's run events, which are published after the commit, never by a NOTIFY in here).
SELECT id, worker_id, attempt, job_id, status
FROM forgeflow_acknowledge(CAST(:ids AS uuid[]), CAST(:workers AS text[]), CAST(:attempts AS integer[]),
                           CAST(:nextStatuses AS text[]), CAST(:delaysMillis AS bigint[]), CAST(:outcomes AS text[]),
                           CAST(:outputs AS text[]), CAST(:errors AS text[]), CAST(:now AS timestamptz))
