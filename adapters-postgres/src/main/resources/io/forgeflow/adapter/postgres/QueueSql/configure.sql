-- configure: sets the limits that are given (a null value clears that limit) and keeps the others, for one tenant's
-- queue. The row update waits for a claim that holds the queue's row, so a claim never sees half of a change.
INSERT INTO queues (tenant, name, max_running, rate_count, rate_per_seconds, updated_at)
VALUES (:tenant, :name, :maxRunning, :rateCount, :ratePerSeconds, coalesce(CAST(:now AS timestamptz), now()))
ON CONFLICT (tenant, name) DO UPDATE
SET max_running      = CASE WHEN :setMaxRunning THEN EXCLUDED.max_running ELSE queues.max_running END,
    rate_count       = CASE WHEN :setRateLimit THEN EXCLUDED.rate_count ELSE queues.rate_count END,
    rate_per_seconds = CASE WHEN :setRateLimit THEN EXCLUDED.rate_per_seconds ELSE queues.rate_per_seconds END,
    updated_at       = EXCLUDED.updated_at
