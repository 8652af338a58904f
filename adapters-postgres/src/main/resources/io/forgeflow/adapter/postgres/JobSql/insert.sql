-- insert: ON CONFLICT (idempotency_key) WHERE ... DO NOTHING lets the keyed jobs' unique index decide between
-- concurrent submissions with one key (a second inserter waits for the first to commit, then stores nothing and
-- returns no row); no read-then-write. A null key never conflicts, and has no entry in that index.
INSERT INTO jobs (id, name, executor, payload, cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds,
                  catch_up, idempotency_key, status, next_run_at, created_at, updated_at, queue, concurrency_key,
                  max_concurrent, overlap, unique_key, traceparent, tracestate, retry_base_seconds,
                  retry_max_seconds, labels, start_at, end_at, max_runs, jitter_seconds, pause_after_failures,
                  sequence_key, sequence_on_dead, notify, debounce, throttle, tenant)
VALUES (CAST(:id AS uuid), :name, :executor, :payload, :cronExpr, :runAt, :timezone, :priority, :maxAttempts,
        :timeoutSeconds, :catchUp, :idempotencyKey, :status, :nextRunAt,
        coalesce(CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now()),
        coalesce(CAST(:updatedAt AS timestamptz), CAST(:createdAt AS timestamptz), CAST(:now AS timestamptz), now()),
        :queue, :concurrencyKey, :maxConcurrent, :overlap, :uniqueKey, :traceparent, :tracestate, :retryBaseSeconds,
        :retryMaxSeconds, CAST(:labels AS jsonb), CAST(:startAt AS timestamptz), CAST(:endAt AS timestamptz),
        :maxRuns, :jitterSeconds, :pauseAfterFailures, :sequenceKey, :sequenceOnDead, CAST(:notify AS jsonb),
        CAST(:debounce AS jsonb), CAST(:throttle AS jsonb), :tenant)
ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
RETURNING *
