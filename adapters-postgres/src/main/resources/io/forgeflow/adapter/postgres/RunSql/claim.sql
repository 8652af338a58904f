-- claim: one round trip into forgeflow_claim (db/changelog/0007-claim-past-a-hint.sql). Runs of open queues without a
-- concurrency key are claimed by the plain FOR UPDATE SKIP LOCKED statement; runs of limited queues or with a key are
-- admitted under their queue's and key's locks, counted after the locks. The started attempt rows are written by the
-- same call. :include null takes every queue. :afterPriority, :afterScheduled, :afterId: the caller's ClaimHint (the
-- last run its previous claim took, when that claim took all it asked for a moment ago; the claim reads that
-- priority from past it); nulls for none.
SELECT *
FROM forgeflow_claim(:worker, CAST(:executors AS text[]), CAST(:include AS text[]), CAST(:exclude AS text[]),
                     :limit, :leaseMillis, CAST(:now AS timestamptz), CAST(:afterPriority AS integer),
                     CAST(:afterScheduled AS timestamptz), CAST(:afterId AS uuid))
