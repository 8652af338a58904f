-- configure: sets what is given (the weight; a null limit clears it) and keeps the rest. Operators are the only
-- writers of a tenants row; claims read it.
INSERT INTO tenants (name, weight, max_running, rate_count, rate_per_seconds, updated_at)
VALUES (:name, :weight, :maxRunning, :rateCount, :ratePerSeconds, coalesce(CAST(:now AS timestamptz), now()))
ON CONFLICT (name) DO UPDATE
SET weight           = CASE WHEN :setWeight THEN EXCLUDED.weight ELSE tenants.weight END,
    max_running      = CASE WHEN :setMaxRunning THEN EXCLUDED.max_running ELSE tenants.max_running END,
    rate_count       = CASE WHEN :setRateLimit THEN EXCLUDED.rate_count ELSE tenants.rate_count END,
    rate_per_seconds = CASE WHEN :setRateLimit THEN EXCLUDED.rate_per_seconds ELSE tenants.rate_per_seconds END,
    updated_at       = EXCLUDED.updated_at
