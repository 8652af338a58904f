-- endAttempts: one call for a batch of ended attempts into forgeflow_end_attempts (db/functions), which locks the runs
-- in id order, fences each row by (id, running, worker, attempt) and, for lease_expired, by the lease having expired,
-- and finishes the attempt rows and the one-off jobs that ended. The worker's acknowledgements and releases and the
-- leader's lease recoveries all come here. Returns the applied fences with each run's job and new status.
SELECT id, worker_id, attempt, job_id, status
FROM forgeflow_end_attempts(CAST(:ids AS uuid[]), CAST(:workers AS text[]), CAST(:attempts AS integer[]),
                            CAST(:nextStatuses AS text[]), CAST(:delaysMillis AS bigint[]), CAST(:outcomes AS text[]),
                            CAST(:outputs AS text[]), CAST(:errors AS text[]), CAST(:now AS timestamptz))
