-- databaseNow: reads the clock the scheduler decides by; no locks.
SELECT coalesce(CAST(:now AS timestamptz), now())
