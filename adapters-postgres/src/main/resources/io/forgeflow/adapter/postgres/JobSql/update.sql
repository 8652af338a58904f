-- update: compare-and-set on a job's definition (PATCH). Applies only while updated_at still equals what the caller
-- read and the job is neither cancelled nor deleted (row lock until commit: a concurrent update waits, then matches
-- nothing and its caller reads again). updated_at moves strictly forward, so a scheduler tick computed from the old
-- definition (fireTick guards on updated_at) is never stored. Keys are stored scoped to the job's tenant (0025).
UPDATE jobs
SET name            = :name,
    payload         = :payload,
    cron_expr       = :cronExpr,
    run_at          = :runAt,
    timezone        = :timezone,
    priority        = :priority,
    max_attempts    = :maxAttempts,
    timeout_seconds = :timeoutSeconds,
    catch_up        = :catchUp,
    queue           = :queue,
    concurrency_key = forgeflow_scoped_key(tenant, :concurrencyKey),
    max_concurrent  = :maxConcurrent,
    overlap         = :overlap,
    retry_base_seconds = :retryBaseSeconds,
    retry_max_seconds  = :retryMaxSeconds,
    labels          = CAST(:labels AS jsonb),
    start_at        = CAST(:startAt AS timestamptz),
    end_at          = CAST(:endAt AS timestamptz),
    max_runs        = :maxRuns,
    jitter_seconds  = :jitterSeconds,
    pause_after_failures = :pauseAfterFailures,
    notify          = CAST(:notify AS jsonb),
    throttle        = CASE WHEN CAST(:throttle AS jsonb) IS NULL THEN NULL
                           ELSE jsonb_set(CAST(:throttle AS jsonb), '{key}',
                                          to_jsonb(forgeflow_scoped_key(tenant, CAST(:throttle AS jsonb) ->> 'key')))
                      END,
    -- a new notify starts from nothing: no recovery is owed to a target that saw no failure
    awaiting_recovery = CASE WHEN notify IS DISTINCT FROM CAST(:notify AS jsonb) THEN false ELSE awaiting_recovery END,
    next_run_at     = CAST(:nextRunAt AS timestamptz),
    updated_at      = greatest(coalesce(CAST(:now AS timestamptz), now()), updated_at + interval '1 microsecond')
WHERE id = CAST(:id AS uuid)
  AND updated_at = CAST(:expectedUpdatedAt AS timestamptz)
  AND status NOT IN ('cancelled', 'deleted')
RETURNING *
