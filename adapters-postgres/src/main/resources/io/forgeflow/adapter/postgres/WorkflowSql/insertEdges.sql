-- insertEdges: the edges of a batch between its own jobs (child, parent, position in the child's depends_on).
INSERT INTO job_dependencies (job_id, parent_id, position)
SELECT * FROM unnest(CAST(:children AS uuid[]), CAST(:parents AS uuid[]), CAST(:positions AS smallint[]))
