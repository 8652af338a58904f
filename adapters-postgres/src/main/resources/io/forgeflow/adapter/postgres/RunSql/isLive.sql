-- isLive: whether runs has the run (by primary key); otherwise it may have moved to run_history.
SELECT EXISTS (SELECT 1 FROM runs WHERE id = CAST(:id AS uuid))
