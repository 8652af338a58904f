-- overlapOf: a job's overlap policy (fixed at submission), read in fireTick's transaction before the tick statement
SELECT overlap
FROM jobs
WHERE id = CAST(:id AS uuid)
