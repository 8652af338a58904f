-- list: a plain read, no locks. Nodes seen within the keep window, each marked live when seen within the (shorter)
-- live window. The running count per node uses the partial index on worker_id WHERE status = running.
SELECT n.*,
       n.last_seen_at >= coalesce(CAST(:now AS timestamptz), now()) - :liveWindowSeconds * interval '1 second' AS live,
       (SELECT count(*) FROM runs r WHERE r.worker_id = n.worker_id AND r.status = 'running') AS running
FROM nodes n
WHERE n.last_seen_at >= coalesce(CAST(:now AS timestamptz), now()) - :keepWindowSeconds * interval '1 second'
ORDER BY n.worker_id
