-- remove: the dispatched notices, in the transaction that locked them (lockOldest); no other locks.
DELETE FROM notices
WHERE id = ANY (CAST(:ids AS bigint[]))
