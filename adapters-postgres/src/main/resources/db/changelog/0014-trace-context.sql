--liquibase formatted sql

-- OpenTelemetry traces (issue 31): the W3C trace context of a job's submission, and of each run's forgeflow.run span
-- with the submission it came from (its parent when in the same trace, a link for a cron tick's new trace). Nullable:
-- a job submitted without trace context while tracing is off has none, and costs nothing.

--changeset forgeflow:0014-trace-context
ALTER TABLE jobs ADD COLUMN traceparent text, ADD COLUMN tracestate text;
ALTER TABLE runs ADD COLUMN traceparent text, ADD COLUMN tracestate text, ADD COLUMN trace_origin text;
--rollback ALTER TABLE runs DROP COLUMN traceparent, DROP COLUMN tracestate, DROP COLUMN trace_origin; ALTER TABLE jobs DROP COLUMN traceparent, DROP COLUMN tracestate;
