-- requeue: compare-and-set dead|cancelled -> pending on one row, due now, with a fresh budget of attempts on top of
-- those already made (the attempt counter keeps counting, so attempt rows stay unique and history is kept).
UPDATE runs
SET status           = 'pending',
    max_attempts     = attempt + :attemptBudget,
    scheduled_for    = coalesce(CAST(:now AS timestamptz), now()),
    started_at       = NULL,
    finished_at      = NULL,
    cancel_requested = false
WHERE id = CAST(:id AS uuid) AND status IN ('dead', 'cancelled')
RETURNING *
