-- heartbeat: an upsert of this node's own row (row lock on that row only); last_seen_at is the database clock.
INSERT INTO nodes (worker_id, roles, version, started_at, last_seen_at, leader, containment, job_user, grpc_address,
                   database_pooling)
VALUES (:workerId, CAST(:roles AS text[]), :version,
        coalesce(CAST(:startedAt AS timestamptz), CAST(:now AS timestamptz), now()),
        coalesce(CAST(:now AS timestamptz), now()), :leader, :containment, :jobUser, :grpcAddress, :pooling)
ON CONFLICT (worker_id) DO UPDATE
    SET roles        = excluded.roles,
        version      = excluded.version,
        started_at   = excluded.started_at,
        last_seen_at = excluded.last_seen_at,
        leader       = excluded.leader,
        containment  = excluded.containment,
        job_user     = excluded.job_user,
        grpc_address = excluded.grpc_address,
        database_pooling = excluded.database_pooling
