-- heartbeat: an upsert of this node's own row (row lock on that row only); last_seen_at is the database clock.
-- history_reader: this release reads run_history (migration 0033); a node of an earlier release leaves it behind its
-- version, and the leader moves nothing into history while such a node is live.
INSERT INTO nodes (worker_id, roles, version, started_at, last_seen_at, leader, containment, job_user, grpc_address,
                   database_pooling, wake_ups, leadership, leader_term, pool_max, pool_in_use, session_connections, history_reader)
VALUES (:workerId, CAST(:roles AS text[]), :version,
        coalesce(CAST(:startedAt AS timestamptz), CAST(:now AS timestamptz), now()),
        coalesce(CAST(:now AS timestamptz), now()), :leader, :containment, :jobUser, :grpcAddress, :pooling,
        :wakeUps, :leadership, CAST(:leaderTerm AS bigint), CAST(:poolMax AS integer), CAST(:poolInUse AS integer),
        CAST(:sessionConnections AS integer), :version)
ON CONFLICT (worker_id) DO UPDATE
    SET roles        = excluded.roles,
        version      = excluded.version,
        started_at   = excluded.started_at,
        last_seen_at = excluded.last_seen_at,
        leader       = excluded.leader,
        containment  = excluded.containment,
        job_user     = excluded.job_user,
        grpc_address = excluded.grpc_address,
        database_pooling = excluded.database_pooling,
        wake_ups     = excluded.wake_ups,
        leadership   = excluded.leadership,
        leader_term  = excluded.leader_term,
        pool_max     = excluded.pool_max,
        pool_in_use  = excluded.pool_in_use,
        session_connections = excluded.session_connections,
        history_reader = excluded.history_reader
