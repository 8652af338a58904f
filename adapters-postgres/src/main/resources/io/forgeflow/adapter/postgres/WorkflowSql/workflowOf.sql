-- workflowOf: parents (in depends_on order), policy and batch of the given jobs that have parents or a batch.
SELECT j.id, j.on_parent_failure, j.batch_id,
       coalesce(array_agg(d.parent_id::text ORDER BY d.position) FILTER (WHERE d.parent_id IS NOT NULL),
                '{}') AS parents
FROM jobs j
LEFT JOIN job_dependencies d ON d.job_id = j.id
WHERE j.id = ANY (CAST(:ids AS uuid[]))
  AND (j.on_parent_failure IS NOT NULL OR j.batch_id IS NOT NULL)
GROUP BY j.id
