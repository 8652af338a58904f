-- forgetUnseen: the leader deletes the rows of nodes that stopped heartbeating long ago (they died without removing
-- their row). Row locks on those few rows only; a node that comes back simply inserts its row again.
DELETE FROM nodes
WHERE last_seen_at < coalesce(CAST(:now AS timestamptz), now()) - :unseenForSeconds * interval '1 second'
