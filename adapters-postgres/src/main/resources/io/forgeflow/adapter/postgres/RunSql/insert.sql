-- insert: a new run (the first run of a submission, or a manual trigger); no locks beyond the new row. fired_for
-- stays null: only scheduler ticks (JobSql/fireTick) carry one.
INSERT INTO runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, executor, payload,
                  timeout_seconds, created_at)
VALUES (CAST(:id AS uuid), CAST(:jobId AS uuid), :status, :priority, :scheduledFor, :attempt, :maxAttempts, :executor,
        :payload, :timeoutSeconds,
        coalesce(CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now()))
RETURNING *
