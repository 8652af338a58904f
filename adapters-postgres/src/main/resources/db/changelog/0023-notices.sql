--liquibase formatted sql

-- Notices (issue 45): a job's notify ({"url": ..., "on": ["dead", "paused", "recovered"]}, checked by the domain's
-- Notify), and the outbox the events write in their own transactions (forgeflow_end_attempts: dead, paused by
-- pause_after_failures, recovered; JobSql/changeStatus.sql: paused by an operator). The leader's NoticeDispatcher
-- turns each row into an http job of the queue forgeflow-notices (idempotency key notice:<id>) and deletes it.
-- awaiting_recovery: a run of a job whose notify has "recovered" died and none has succeeded since (a resume keeps it,
-- unlike dead_streak). Existing jobs have no notify: nothing changes for them.

--changeset forgeflow:0023-notices
ALTER TABLE jobs
    ADD COLUMN notify jsonb
        CONSTRAINT jobs_notify_shape CHECK (jsonb_typeof(notify -> 'url') = 'string'
                                            AND jsonb_typeof(notify -> 'on') = 'array'
                                            AND jsonb_array_length(notify -> 'on') > 0),
    ADD COLUMN awaiting_recovery boolean NOT NULL DEFAULT false;

CREATE TABLE notices (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id     uuid        NOT NULL,
    job_name   text,
    event      text        NOT NULL CONSTRAINT notices_event CHECK (event IN ('dead', 'paused', 'recovered')),
    url        text        NOT NULL,
    run_id     uuid,
    attempt    integer,
    error      text,
    note       text,
    created_at timestamptz NOT NULL
);
--rollback DROP TABLE notices; ALTER TABLE jobs DROP COLUMN notify, DROP COLUMN awaiting_recovery;
