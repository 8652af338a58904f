--liquibase formatted sql

-- The checks repeat the rules of API.md and of the domain (JobDraft, Run, RunStatus) so that no code path, not even
-- a manual UPDATE, can store a state the domain forbids. Ids are UUIDv7 (time-ordered): ORDER BY id DESC is newest
-- first, served by the primary key or by the (..., id DESC) indexes below.

--changeset forgeflow:0001-jobs
CREATE TABLE jobs (
    id              uuid        PRIMARY KEY,
    name            text        NOT NULL CONSTRAINT jobs_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
    executor        text        NOT NULL CONSTRAINT jobs_executor_length CHECK (char_length(executor) BETWEEN 1 AND 100),
    payload         jsonb       NOT NULL DEFAULT '{}' CONSTRAINT jobs_payload_object CHECK (jsonb_typeof(payload) = 'object'),
    cron_expr       text,
    run_at          timestamptz,
    timezone        text        NOT NULL DEFAULT 'UTC',
    priority        smallint    NOT NULL DEFAULT 5 CONSTRAINT jobs_priority_range CHECK (priority BETWEEN 1 AND 9),
    max_attempts    integer     NOT NULL DEFAULT 3 CONSTRAINT jobs_max_attempts_range CHECK (max_attempts BETWEEN 1 AND 100),
    timeout_seconds integer     NOT NULL DEFAULT 300 CONSTRAINT jobs_timeout_range CHECK (timeout_seconds BETWEEN 1 AND 86400),
    catch_up        text        NOT NULL DEFAULT 'skip' CONSTRAINT jobs_catch_up_values CHECK (catch_up IN ('skip', 'once')),
    idempotency_key text        CONSTRAINT jobs_idempotency_key_length CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
    status          text        NOT NULL DEFAULT 'active'
                                CONSTRAINT jobs_status_values CHECK (status IN ('active', 'paused', 'cancelled', 'completed')),
    next_run_at     timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    -- at most one of cron_expr (recurring) and run_at (one-off at that time); neither is a one-off run now
    CONSTRAINT jobs_one_schedule CHECK (cron_expr IS NULL OR run_at IS NULL),
    -- decides concurrent submissions with one key (INSERT ... ON CONFLICT (idempotency_key) DO NOTHING)
    CONSTRAINT jobs_idempotency_key_unique UNIQUE (idempotency_key)
);
-- the scheduler's read: active recurring jobs by next_run_at
CREATE INDEX jobs_due_idx ON jobs (next_run_at) WHERE status = 'active' AND cron_expr IS NOT NULL;
-- newest-first listing filtered by status (unfiltered listing walks the primary key backwards)
CREATE INDEX jobs_status_id_idx ON jobs (status, id DESC);
--rollback DROP TABLE jobs;

--changeset forgeflow:0001-runs
CREATE TABLE runs (
    id               uuid        PRIMARY KEY,
    job_id           uuid        NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    status           text        NOT NULL
                                 CONSTRAINT runs_status_values CHECK (status IN ('pending', 'running', 'succeeded', 'dead', 'cancelled')),
    priority         smallint    NOT NULL CONSTRAINT runs_priority_range CHECK (priority BETWEEN 1 AND 9),
    scheduled_for    timestamptz NOT NULL,
    -- the scheduler tick this run stands for (the job's next_run_at it consumed); null for first runs of a
    -- submission and for manual triggers, which therefore never conflict with ticks or with each other
    fired_for        timestamptz,
    -- attempts started so far; never decreases, so (id, attempt) names one attempt forever (the fence)
    attempt          integer     NOT NULL DEFAULT 0 CONSTRAINT runs_attempt_non_negative CHECK (attempt >= 0),
    max_attempts     integer     NOT NULL CONSTRAINT runs_max_attempts_positive CHECK (max_attempts >= 1),
    started_at       timestamptz,
    finished_at      timestamptz,
    worker_id        text,
    lease_expires_at timestamptz,
    output           text,
    error            text,
    executor         text        NOT NULL,
    payload          jsonb       NOT NULL DEFAULT '{}',
    timeout_seconds  integer     NOT NULL CONSTRAINT runs_timeout_range CHECK (timeout_seconds BETWEEN 1 AND 86400),
    cancel_requested boolean     NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- a run is running exactly when it has a worker and a lease
    CONSTRAINT runs_running_is_leased CHECK ((status = 'running') = (worker_id IS NOT NULL AND lease_expires_at IS NOT NULL))
);
-- the claim queue: ORDER BY priority, scheduled_for, id over pending runs only
CREATE INDEX runs_pending_queue_idx ON runs (priority, scheduled_for, id) WHERE status = 'pending';
-- a worker's running runs: heartbeats, acknowledgements, cancellation polls, running counts per node
CREATE INDEX runs_running_worker_idx ON runs (worker_id) WHERE status = 'running';
-- lease recovery: running runs by lease expiry
CREATE INDEX runs_running_lease_idx ON runs (lease_expires_at) WHERE status = 'running';
-- newest-first listings of one job, and of one status (status = 'dead' is the dead-letter queue)
CREATE INDEX runs_job_id_idx ON runs (job_id, id DESC);
CREATE INDEX runs_status_id_idx ON runs (status, id DESC);
-- a scheduler tick fires at most once, even if two nodes both believe they lead
CREATE UNIQUE INDEX runs_job_tick_unique ON runs (job_id, fired_for) WHERE fired_for IS NOT NULL;
--rollback DROP TABLE runs;

--changeset forgeflow:0001-run-attempts
CREATE TABLE run_attempts (
    run_id      uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    attempt     integer     NOT NULL CONSTRAINT run_attempts_attempt_positive CHECK (attempt >= 1),
    worker_id   text        NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz,
    outcome     text        CONSTRAINT run_attempts_outcome_values
                            CHECK (outcome IN ('succeeded', 'failed', 'timed_out', 'lease_expired', 'cancelled', 'released')),
    error       text,
    PRIMARY KEY (run_id, attempt),
    -- written once when started (no outcome) and once when finished (outcome and end time together)
    CONSTRAINT run_attempts_finished_has_outcome CHECK ((outcome IS NULL) = (finished_at IS NULL))
);
--rollback DROP TABLE run_attempts;

--changeset forgeflow:0001-nodes
CREATE TABLE nodes (
    worker_id    text        PRIMARY KEY,
    roles        text[]      NOT NULL,
    version      text        NOT NULL,
    started_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    leader       boolean     NOT NULL DEFAULT false
);
--rollback DROP TABLE nodes;
