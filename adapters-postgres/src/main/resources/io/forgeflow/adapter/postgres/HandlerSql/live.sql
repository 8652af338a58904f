-- live: the handler names with a row not expired yet (database clock). A plain read of a small table; no locks.
SELECT DISTINCT name FROM handlers WHERE expires_at > coalesce(CAST(:now AS timestamptz), now()) ORDER BY name
