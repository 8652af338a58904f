package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Human output of one job or run: aligned "key  value" lines, then any text blocks. */
final class Details {
    private final List<String[]> fields = new ArrayList<>();

    Details field(String key, Object value) {
        fields.add(new String[]{key, value == null ? "-" : Text.line(String.valueOf(value))});
        return this;
    }

    void print(ClientCommand.Output out) {
        int width = fields.stream().mapToInt(f -> f[0].length()).max().orElse(0);
        for (String[] f : fields) {
            out.println(f[0] + " ".repeat(width - f[0].length() + 2) + f[1]);
        }
    }

    /** {@code user-42: trailing, 30s after the last submission, at most 300s after the first}. */
    static String debounceText(io.forgeflow.client.Debounce d) {
        if (d == null) {
            return null;
        }
        if (io.forgeflow.client.Debounce.LEADING.equals(d.edge())) {
            return d.key() + ": leading, the first runs at once, others within " + d.periodSeconds() + "s join it";
        }
        return d.key() + ": trailing, " + d.periodSeconds() + "s after the last submission"
                + (d.maxWaitSeconds() == null ? "" : ", at most " + d.maxWaitSeconds() + "s after the first");
    }

    static String schedule(Job job) {
        if (job.cronExpr() != null) {
            return job.cronExpr() + " (" + (job.timezone() == null ? "UTC" : job.timezone()) + ")";
        }
        if (job.runAt() != null) {
            return "once at " + Text.time(job.runAt());
        }
        return "once, now";
    }

    static void job(ClientCommand.Output out, Job job) {
        new Details()
                .field("id", job.id())
                .field("name", job.name())
                .field("executor", job.executor())
                .field("status", job.status())
                .field("tenant", job.tenant())
                .field("paused", paused(job))
                .field("waiting for", job.waitingFor())
                .field("schedule", schedule(job))
                .field("window", window(job))
                .field("runs", runs(job))
                .field("jitter", job.jitterSeconds() == 0 ? null : "0-" + job.jitterSeconds() + "s after each tick")
                .field("pause after", job.pauseAfterFailures() == null ? null
                        : job.pauseAfterFailures() + " dead run(s) in a row (now " + job.deadStreak() + " of "
                        + job.pauseAfterFailures() + " dead in a row)")
                .field("notify", job.notices() == null ? null : job.notices().url() + " on "
                        + String.join(", ", job.notices().on() == null ? List.of() : job.notices().on()))
                .field("next run", Text.time(job.nextRunAt()))
                .field("priority", job.priority())
                .field("max attempts", job.maxAttempts())
                .field("retry", retry(job.retry()))
                .field("timeout", job.timeoutSeconds() + "s")
                .field("catch up", job.catchUp())
                .field("idempotency", job.idempotencyKey())
                .field("queue", job.queue())
                .field("concurrency", concurrency(job))
                .field("overlap", job.overlap())
                .field("labels", labelsText(job.labels()))
                .field("sequence", job.sequenceKey() == null ? null
                        : job.sequenceKey() + " (a dead run " + ("continue".equals(job.onDead()) ? "lets it go on)"
                        : "blocks it)"))
                .field("debounce", debounceText(job.debounce()))
                .field("throttle", job.throttle() == null ? null : job.throttle().key() + ": at most "
                        + job.throttle().count() + " start(s) per " + job.throttle().perSeconds() + "s")
                .field("depends on", job.dependsOn().isEmpty() ? null : String.join(", ", job.dependsOn()))
                .field("parent fails", job.onParentFailure())
                .field("batch", job.batchId())
                .field("payload", payloadText(job.payload()))
                .field("created", Text.time(job.createdAt()))
                .field("updated", Text.time(job.updatedAt()))
                .field("trace", job.traceId())
                .print(out);
        linked(out, "parents", job.parentsOrEmpty(), job.dependsOn().size());
        linked(out, "children", job.childrenOrEmpty(), -1);
    }

    /** The tenant of the default tenant's objects, and of all of them before tenants. */
    static final String DEFAULT_TENANT = "default";

    /** Whether a job or run is in a tenant other than {@code default} (null: a server that predates tenants). */
    static boolean otherTenant(String tenant) {
        return tenant != null && !DEFAULT_TENANT.equals(tenant);
    }

    /** The parents or children of a job as a table, each with its status and its latest run's; nothing when none. */
    static void linked(ClientCommand.Output out, String title, List<io.forgeflow.client.LinkedJob> jobs, int expected) {
        if (jobs.isEmpty()) {
            return;
        }
        out.println("");
        out.println(title + " (" + jobs.size() + (expected > jobs.size() ? " of " + expected : "") + "):");
        Table table = new Table("ID", "NAME", "STATUS", "LAST RUN");
        jobs.forEach(j -> table.row(j.id(), j.name(), j.status(), j.runStatus() == null ? "none yet" : j.runStatus()));
        out.table(table);
    }

    /** Why and by whom a paused job was paused, or null when it is not paused or no one said. */
    static String paused(Job job) {
        if (job.pausedNote() == null && job.pausedBy() == null) {
            return null;
        }
        return (job.pausedNote() == null ? "(no note)" : Text.line(job.pausedNote()))
                + (job.pausedBy() == null ? "" : " (by " + job.pausedBy() + ")");
    }

    /** A recurring job's start_at..end_at in words, or null when it has neither. */
    static String window(Job job) {
        if (job.startAt() == null && job.endAt() == null) {
            return null;
        }
        return (job.startAt() == null ? "from now" : "from " + Text.time(job.startAt()))
                + (job.endAt() == null ? "" : " until " + Text.time(job.endAt()));
    }

    /** Runs fired of max_runs, or null for a job without a limit that has fired none. */
    static String runs(Job job) {
        if (job.maxRuns() == null) {
            return job.firedRuns() == 0 ? null : job.firedRuns() + " fired";
        }
        return job.firedRuns() + " of " + job.maxRuns() + " fired";
    }

    /** A job's own retry backoff in words. */
    static String retry(io.forgeflow.client.Retry retry) {
        if (retry == null) {
            return "server default";
        }
        return "backoff base " + (retry.baseSeconds() == null ? "default" : retry.baseSeconds() + "s") + ", cap "
                + (retry.maxSeconds() == null ? "default" : retry.maxSeconds() + "s") + " (full jitter)";
    }

    /** The job's concurrency limit in words, or null when it has none. */
    static String concurrency(Job job) {
        if (job.maxConcurrent() == null) {
            return null;
        }
        return job.concurrencyKey() == null ? "at most " + job.maxConcurrent() + " run(s) of this job at once"
                : "at most " + job.maxConcurrent() + " run(s) at once sharing key " + job.concurrencyKey();
    }

    static void run(ClientCommand.Output out, Run run, String jobName) {
        Details d = new Details()
                .field("id", run.id())
                .field("job", jobName.equals(run.jobId()) ? run.jobId() : jobName + " (" + run.jobId() + ")")
                .field("status", run.status())
                .field("tenant", run.tenant())
                .field("waiting for", run.waitingFor())
                .field("attempt", run.attempt() + " / " + run.maxAttempts())
                .field("priority", run.priority())
                .field("labels", labelsText(run.labels()))
                .field("scheduled", Text.time(run.scheduledFor()))
                .field("started", Text.time(run.startedAt()))
                .field("finished", Text.time(run.finishedAt()))
                .field("worker", run.workerId() != null || run.attemptsOrEmpty().isEmpty() ? run.workerId()
                        : run.attemptsOrEmpty().get(run.attemptsOrEmpty().size() - 1).workerId())
                .field("trace", run.traceId());
        if (run.traceUrl() != null) {
            d.field("trace url", run.traceUrl());
        }
        if (run.snoozes() > 0) {
            d.field("snoozes", run.snoozes() + " (came back later without spending an attempt)");
        }
        if (Run.RUNNING.equals(run.status())) {
            d.field("lease until", Text.time(run.leaseExpiresAt()));
        }
        d.print(out);
        if (run.error() != null && !run.error().isEmpty()) {
            out.println("");
            out.println("error:");
            out.println(Text.indent(run.error()));
        }
        out.println("");
        out.println("output:");
        out.println(Text.indent(run.output()));
        if (run.attempts() != null) {
            out.println("");
            Table attempts = new Table("ATTEMPT>", "OUTCOME", "WORKER", "STARTED", "TOOK", "ERROR");
            run.attempts().forEach(a -> attempts.row(a.attempt(), a.outcome() == null ? "running" : a.outcome(), a.workerId(),
                    Text.time(a.startedAt()), a.startedAt() == null || a.finishedAt() == null ? "-"
                            : Text.duration(java.time.Duration.between(a.startedAt(), a.finishedAt())), a.error()));
            if (attempts.isEmpty()) {
                out.println("no attempts yet");
            } else {
                out.table(attempts);
            }
        }
    }

    /** {@code team=billing, env=prod}; null (no line) when none. */
    static String labelsText(Map<String, String> labels) {
        if (labels == null || labels.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        new java.util.TreeMap<>(labels).forEach((k, v) -> text.append(text.length() == 0 ? "" : ", ").append(k)
                .append('=').append(Text.line(v)));
        return text.toString();
    }

    private static String payloadText(Map<String, Object> payload) {
        if (payload == null) {
            return "{}";
        }
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(payload);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return payload.toString();
        }
    }

    /** Job names for run listings, each job read once; an id whose job cannot be read stays an id. */
    static final class JobNames {
        private final ForgeFlowClient client;
        private final Map<String, String> names = new HashMap<>();

        JobNames(ForgeFlowClient client) {
            this.client = client;
        }

        String of(String jobId) {
            return names.computeIfAbsent(jobId, id -> {
                try {
                    return client.getJob(id).name();
                } catch (ForgeFlowApiException e) {
                    return id;
                }
            });
        }
    }
}
