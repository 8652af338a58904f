package io.forgeflow.adapter.grpc;

import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import io.forgeflow.adapter.grpc.v1.Job;
import io.forgeflow.adapter.grpc.v1.JobSpec;
import io.forgeflow.adapter.grpc.v1.Node;
import io.forgeflow.adapter.grpc.v1.NodeConnections;
import io.forgeflow.adapter.grpc.v1.Queue;
import io.forgeflow.adapter.grpc.v1.RateLimit;
import io.forgeflow.adapter.grpc.v1.RetryPolicy;
import io.forgeflow.adapter.grpc.v1.Run;
import io.forgeflow.adapter.grpc.v1.RunChange;
import io.forgeflow.adapter.grpc.v1.Tenant;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.NodeRegistry.NodeStatus;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.tenant.TenantInfo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Messages to the domain's values and back: field for field, nothing decided here. */
final class Convert {
    private Convert() {
    }

    /** A submitted definition as the REST API's draft: unset fields stay null (the domain's defaults apply). */
    static JobDraft draft(JobSpec s) {
        RetryPolicy r = s.hasRetry() ? s.getRetry() : null;
        return new JobDraft(s.hasName() ? s.getName() : null, s.hasExecutor() ? s.getExecutor() : null,
                s.hasPayload() ? map(s.getPayload()) : null, s.hasCronExpr() ? s.getCronExpr() : null,
                s.hasRunAt() ? instant(s.getRunAt()) : null, s.hasTimezone() ? s.getTimezone() : null,
                s.hasPriority() ? s.getPriority() : null, s.hasMaxAttempts() ? s.getMaxAttempts() : null,
                s.hasTimeoutSeconds() ? s.getTimeoutSeconds() : null, s.hasCatchUp() ? s.getCatchUp() : null,
                s.hasIdempotencyKey() ? s.getIdempotencyKey() : null, s.hasQueue() ? s.getQueue() : null,
                s.hasConcurrencyKey() ? s.getConcurrencyKey() : null,
                s.hasMaxConcurrent() ? s.getMaxConcurrent() : null, s.hasOverlap() ? s.getOverlap() : null,
                s.hasUniqueKey() ? s.getUniqueKey() : null, s.hasUniqueOnConflict() ? s.getUniqueOnConflict() : null,
                r != null && r.hasBaseSeconds() ? r.getBaseSeconds() : null,
                r != null && r.hasMaxSeconds() ? r.getMaxSeconds() : null,
                s.getLabelsMap().isEmpty() ? null : s.getLabelsMap(), controls(s),
                s.hasSequenceKey() ? s.getSequenceKey() : null, s.hasOnDead() ? s.getOnDead() : null,
                s.hasNotify() ? new io.forgeflow.domain.job.Notify(s.getNotify().getUrl(),
                        s.getNotify().getOnCount() == 0 ? null : s.getNotify().getOnList()) : null,
                s.hasDebounce() ? new io.forgeflow.domain.job.Debounce(s.getDebounce().getKey(),
                        s.getDebounce().hasPeriodSeconds() ? s.getDebounce().getPeriodSeconds() : null,
                        s.getDebounce().hasMaxWaitSeconds() ? s.getDebounce().getMaxWaitSeconds() : null,
                        s.getDebounce().hasEdge() ? s.getDebounce().getEdge() : null) : null,
                s.hasThrottle() ? new io.forgeflow.domain.job.Throttle(s.getThrottle().getKey(),
                        s.getThrottle().hasCount() ? s.getThrottle().getCount() : null,
                        s.getThrottle().hasPerSeconds() ? s.getThrottle().getPerSeconds() : null) : null);
    }

    /** The schedule controls a definition gives; null when it gives none. */
    static io.forgeflow.domain.job.ScheduleControls controls(JobSpec s) {
        if (!s.hasStartAt() && !s.hasEndAt() && !s.hasMaxRuns() && !s.hasJitterSeconds()
                && !s.hasPauseAfterFailures()) {
            return null;
        }
        return new io.forgeflow.domain.job.ScheduleControls(s.hasStartAt() ? instant(s.getStartAt()) : null,
                s.hasEndAt() ? instant(s.getEndAt()) : null, s.hasMaxRuns() ? s.getMaxRuns() : null,
                s.hasJitterSeconds() ? s.getJitterSeconds() : null,
                s.hasPauseAfterFailures() ? s.getPauseAfterFailures() : null);
    }

    static JobSpec spec(io.forgeflow.domain.job.JobSpec s) {
        JobSpec.Builder b = JobSpec.newBuilder().setName(s.name()).setExecutor(s.executor())
                .setPayload(struct(io.forgeflow.domain.job.PayloadRedaction.redact(s.payload()))).setTimezone(s.timezone()).setPriority(s.priority())
                .setMaxAttempts(s.maxAttempts()).setTimeoutSeconds(s.timeoutSeconds())
                .setCatchUp(s.catchUp().wireName()).setQueue(s.queue()).setOverlap(s.overlap().wireName())
                .putAllLabels(s.labels());
        if (s.cronExpr() != null) {
            b.setCronExpr(s.cronExpr());
        }
        if (s.runAt() != null) {
            b.setRunAt(timestamp(s.runAt()));
        }
        if (s.idempotencyKey() != null) {
            b.setIdempotencyKey(s.idempotencyKey());
        }
        if (s.concurrencyKey() != null) {
            b.setConcurrencyKey(s.concurrencyKey());
        }
        if (s.maxConcurrent() != null) {
            b.setMaxConcurrent(s.maxConcurrent());
        }
        if (s.uniqueKey() != null) {
            b.setUniqueKey(s.uniqueKey());
        }
        if (s.sequenceKey() != null) {
            b.setSequenceKey(s.sequenceKey()).setOnDead(s.sequenceOnDead());
        }
        io.forgeflow.domain.job.ScheduleControls c = s.schedule();
        if (c.startAt() != null) {
            b.setStartAt(timestamp(c.startAt()));
        }
        if (c.endAt() != null) {
            b.setEndAt(timestamp(c.endAt()));
        }
        if (c.maxRuns() != null) {
            b.setMaxRuns(c.maxRuns());
        }
        if (s.isRecurring()) {
            b.setJitterSeconds(c.jitter());
        }
        if (c.pauseAfterFailures() != null) {
            b.setPauseAfterFailures(c.pauseAfterFailures());
        }
        if (s.notices() != null) {
            b.setNotify(io.forgeflow.adapter.grpc.v1.Notify.newBuilder().setUrl(s.notices().url())
                    .addAllOn(s.notices().on()));
        }
        if (s.debounce() != null) {
            io.forgeflow.adapter.grpc.v1.Debounce.Builder d = io.forgeflow.adapter.grpc.v1.Debounce.newBuilder()
                    .setKey(s.debounce().key()).setPeriodSeconds(s.debounce().periodSeconds())
                    .setEdge(s.debounce().edge());
            if (s.debounce().maxWaitSeconds() != null) {
                d.setMaxWaitSeconds(s.debounce().maxWaitSeconds());
            }
            b.setDebounce(d);
        }
        if (s.throttle() != null) {
            b.setThrottle(io.forgeflow.adapter.grpc.v1.Throttle.newBuilder().setKey(s.throttle().key())
                    .setCount(s.throttle().count()).setPerSeconds(s.throttle().perSeconds()));
        }
        if (s.retry() != null) {
            RetryPolicy.Builder r = RetryPolicy.newBuilder();
            if (s.retry().baseSeconds() != null) {
                r.setBaseSeconds(s.retry().baseSeconds());
            }
            if (s.retry().maxSeconds() != null) {
                r.setMaxSeconds(s.retry().maxSeconds());
            }
            b.setRetry(r);
        }
        return b.build();
    }

    static Job job(io.forgeflow.domain.job.Job j, String waitingFor) {
        return job(j, waitingFor, false);
    }

    static Job job(io.forgeflow.domain.job.Job j, String waitingFor, boolean payloadTruncated) {
        JobSpec spec = spec(j.spec());
        if (payloadTruncated) {
            spec = spec.toBuilder().clearPayload().build();
        }
        Job.Builder b = Job.newBuilder().setId(j.id()).setSpec(spec).setStatus(j.status().wireName())
                .setSubmittedVia(j.submittedVia()).setPayloadTruncated(payloadTruncated)
                .setFiredRuns(j.schedule().firedRuns()).setDeadStreak(j.schedule().deadStreak())
                .setTenant(io.forgeflow.domain.tenant.Tenants.orDefault(j.tenant()));
        if (j.nextDueAt() != null) {
            b.setNextRunAt(timestamp(j.nextDueAt()));
        }
        if (j.schedule().pausedNote() != null) {
            b.setPausedNote(j.schedule().pausedNote());
        }
        if (j.schedule().pausedBy() != null) {
            b.setPausedBy(j.schedule().pausedBy());
        }
        if (j.createdAt() != null) {
            b.setCreatedAt(timestamp(j.createdAt()));
        }
        if (j.updatedAt() != null) {
            b.setUpdatedAt(timestamp(j.updatedAt()));
        }
        if (waitingFor != null) {
            b.setWaitingFor(waitingFor);
        }
        return b.build();
    }

    static Run run(io.forgeflow.domain.run.Run r, String waitingFor) {
        return run(r, waitingFor, false);
    }

    static Run run(io.forgeflow.domain.run.Run r, String waitingFor, boolean outputTruncated) {
        Run.Builder b = Run.newBuilder().setId(r.id()).setJobId(r.jobId()).setStatus(r.status().wireName())
                .setAttempt(r.attempt()).setMaxAttempts(r.maxAttempts()).setPriority(r.priority())
                .setTimeoutSeconds(r.timeoutSeconds()).setCancelRequested(r.cancelRequested())
                .setOutputTruncated(outputTruncated).setSnoozes(r.snoozes())
                .setTenant(io.forgeflow.domain.tenant.Tenants.orDefault(r.tenant()));
        if (r.labels() != null) {
            b.putAllLabels(r.labels());
        }
        if (r.scheduledFor() != null) {
            b.setScheduledFor(timestamp(r.scheduledFor()));
        }
        if (r.startedAt() != null) {
            b.setStartedAt(timestamp(r.startedAt()));
        }
        if (r.finishedAt() != null) {
            b.setFinishedAt(timestamp(r.finishedAt()));
        }
        if (r.createdAt() != null) {
            b.setCreatedAt(timestamp(r.createdAt()));
        }
        if (r.workerId() != null) {
            b.setWorkerId(r.workerId());
        }
        if (r.output() != null) {
            b.setOutput(r.output());
        }
        if (r.error() != null) {
            b.setError(r.error());
        }
        if (r.executor() != null) {
            b.setExecutor(r.executor());
        }
        if (waitingFor != null) {
            b.setWaitingFor(waitingFor);
        }
        return b.build();
    }

    static RunChange change(io.forgeflow.domain.run.RunChange c) {
        RunChange.Builder b = RunChange.newBuilder().setRunId(c.runId()).setJobId(c.jobId())
                .setStatus(c.status().wireName()).setAttempt(c.attempt());
        if (c.workerId() != null) {
            b.setWorkerId(c.workerId());
        }
        if (c.at() != null) {
            b.setAt(timestamp(c.at()));
        }
        return b.build();
    }

    static Queue queue(QueueInfo q) {
        Queue.Builder b = Queue.newBuilder().setName(q.name()).setPending(q.pending()).setDue(q.due())
                .setRunning(q.running()).setLagSeconds(q.lag().toMillis() / 1000.0).setPaused(q.paused())
                .setTenant(q.tenant());
        if (q.limits() != null && q.limits().maxRunning() != null) {
            b.setMaxRunning(q.limits().maxRunning());
        }
        if (q.limits() != null && q.limits().rateLimit() != null) {
            b.setRateLimit(RateLimit.newBuilder().setCount(q.limits().rateLimit().count())
                    .setPerSeconds(q.limits().rateLimit().perSeconds()));
        }
        return b.build();
    }

    static Tenant tenant(TenantInfo t) {
        Tenant.Builder b = Tenant.newBuilder().setName(t.name()).setWeight(t.settings().weight())
                .setPending(t.pending()).setRunning(t.running()).setStartsInWindow(t.startsInWindow());
        if (t.settings().maxRunning() != null) {
            b.setMaxRunning(t.settings().maxRunning());
        }
        if (t.settings().rateLimit() != null) {
            b.setRateLimit(RateLimit.newBuilder().setCount(t.settings().rateLimit().count())
                    .setPerSeconds(t.settings().rateLimit().perSeconds()));
        }
        return b.build();
    }

    static Node node(NodeStatus n) {
        Node.Builder b = Node.newBuilder().setWorkerId(n.info().workerId())
                .addAllRoles(n.info().roles().stream().sorted().toList()).setLeader(n.info().leader())
                .setRunning(n.running()).setLive(n.live());
        if (n.info().version() != null) {
            b.setVersion(n.info().version());
        }
        if (n.info().startedAt() != null) {
            b.setStartedAt(timestamp(n.info().startedAt()));
        }
        if (n.lastSeenAt() != null) {
            b.setLastSeenAt(timestamp(n.lastSeenAt()));
        }
        if (n.info().containment() != null) {
            b.setContainment(n.info().containment());
        }
        if (n.info().pooling() != null) {
            b.setDatabasePooling(n.info().pooling());
        }
        if (n.info().wakeUps() != null) {
            b.setWakeUps(n.info().wakeUps());
        }
        if (n.info().leadership() != null) {
            b.setLeadership(n.info().leadership());
        }
        if (n.live() && n.info().leader() && n.info().leaderTerm() != null) {
            b.setLeaderTerm(n.info().leaderTerm());
        }
        if (n.info().connections() != null) {
            b.setConnections(NodeConnections.newBuilder().setPoolMax(n.info().connections().poolMax())
                    .setPoolInUse(n.info().connections().poolInUse()).setSessions(n.info().connections().sessions()));
        }
        if (n.info().grpcAddress() != null) {
            b.setGrpcAddress(n.info().grpcAddress());
        }
        if (n.info().jobUser() != null) {
            b.setJobUser(n.info().jobUser());
        }
        return b.build();
    }

    /** A job status filter: empty for none, else a status's wire name (as REST's {@code ?status=}). */
    static JobStatus jobStatus(String value) {
        if (value.isEmpty()) {
            return null;
        }
        for (JobStatus s : JobStatus.values()) {
            if (s.wireName().equals(value)) {
                return s;
            }
        }
        throw new InvalidQueryException("status", "status must be one of " + names(JobStatus.values())
                + ", was '" + shorten(value) + "'");
    }

    static RunStatus runStatus(String field, String value) {
        if (value.isEmpty()) {
            return null;
        }
        for (RunStatus s : RunStatus.values()) {
            if (s.wireName().equals(value)) {
                return s;
            }
        }
        throw new InvalidQueryException(field, field + " must be one of " + names(RunStatus.values())
                + ", was '" + shorten(value) + "'");
    }

    private static String names(Enum<?>[] values) {
        List<String> names = new ArrayList<>();
        for (Enum<?> v : values) {
            names.add(v instanceof JobStatus j ? j.wireName() : ((RunStatus) v).wireName());
        }
        return String.join(", ", names);
    }

    /** A page size: 0 takes REST's default (50); 1 to 500 otherwise. */
    static int pageSize(int size) {
        if (size == 0) {
            return 50;
        }
        if (size < 1 || size > 500) {
            throw new InvalidQueryException("page_size", "page_size must be 1 to 500 (0: 50), was " + size);
        }
        return size;
    }

    static String token(String pageToken) {
        return pageToken.isEmpty() ? null : pageToken;
    }

    static String shorten(String text) {
        return text.length() > 100 ? text.substring(0, 100) + "..." : text;
    }

    static Timestamp timestamp(Instant at) {
        return Timestamp.newBuilder().setSeconds(at.getEpochSecond()).setNanos(at.getNano()).build();
    }

    static io.forgeflow.adapter.grpc.v1.Backfill backfill(io.forgeflow.domain.port.JobRepository.BackfillProgress p) {
        return io.forgeflow.adapter.grpc.v1.Backfill.newBuilder().setId(p.id()).setJobId(p.jobId())
                .setFrom(timestamp(p.from())).setTo(timestamp(p.to())).setOverlap(p.overlap()).setTicks(p.ticks())
                .setCreated(p.created()).setSkipped(p.ticks() - p.created()).setCreatedAt(timestamp(p.createdAt()))
                .setDone(p.done()).putAllRuns(new java.util.TreeMap<>(p.runs())).build();
    }

    static Instant instant(Timestamp t) {
        if (t.getNanos() < 0 || t.getNanos() > 999_999_999) {
            throw new ValidationException("timestamp", "a timestamp's nanos must be 0 to 999999999");
        }
        return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
    }

    /** A Struct as the parsed JSON the domain keeps: whole numbers as longs, as a JSON reader gives them. */
    static Map<String, Object> map(Struct struct) {
        Map<String, Object> map = new LinkedHashMap<>();
        struct.getFieldsMap().forEach((k, v) -> map.put(k, value(v)));
        return map;
    }

    private static Object value(Value v) {
        switch (v.getKindCase()) {
            case STRUCT_VALUE:
                return map(v.getStructValue());
            case LIST_VALUE:
                List<Object> list = new ArrayList<>();
                v.getListValue().getValuesList().forEach(e -> list.add(value(e)));
                return list;
            case STRING_VALUE:
                return v.getStringValue();
            case BOOL_VALUE:
                return v.getBoolValue();
            case NUMBER_VALUE:
                double d = v.getNumberValue();
                if (d == Math.rint(d) && Math.abs(d) < 9.007199254740992E15) {
                    long l = (long) d;
                    return l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? (Object) (int) l : (Object) l;
                }
                return d;
            default:
                return null;
        }
    }

    static Struct struct(Map<String, ?> map) {
        Struct.Builder b = Struct.newBuilder();
        if (map != null) {
            map.forEach((k, v) -> b.putFields(k, toValue(v)));
        }
        return b.build();
    }

    private static Value toValue(Object o) {
        if (o == null) {
            return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
        }
        if (o instanceof Map<?, ?> m) {
            Struct.Builder b = Struct.newBuilder();
            m.forEach((k, v) -> b.putFields(String.valueOf(k), toValue(v)));
            return Value.newBuilder().setStructValue(b).build();
        }
        if (o instanceof List<?> l) {
            ListValue.Builder b = ListValue.newBuilder();
            l.forEach(e -> b.addValues(toValue(e)));
            return Value.newBuilder().setListValue(b).build();
        }
        if (o instanceof Boolean bool) {
            return Value.newBuilder().setBoolValue(bool).build();
        }
        if (o instanceof Number n) {
            return Value.newBuilder().setNumberValue(n.doubleValue()).build();
        }
        return Value.newBuilder().setStringValue(String.valueOf(o)).build();
    }
}
