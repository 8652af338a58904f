package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.forgeflow.application.schedule.PreviewSchedule;
import io.forgeflow.application.schedule.PreviewSchedule.PreviewedFire;
import io.forgeflow.domain.error.InvalidQueryException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * {@code GET /api/schedules/preview}: the next fire times of a cron expression in a zone, as the scheduler computes
 * them (API.md, "Schedule preview"). A bad {@code cron_expr} or {@code timezone} is a 422 as on submission; a bad
 * {@code after} or {@code count} a 400.
 */
@Path("/api/schedules")
@Produces(MediaType.APPLICATION_JSON)
public final class ScheduleResource {
    private final PreviewSchedule previewSchedule;
    private final java.util.function.Function<String, io.forgeflow.domain.job.Job> jobs;

    public ScheduleResource(PreviewSchedule previewSchedule) {
        this(previewSchedule, null);
    }

    /** @param jobs finds a job by id for {@code job_id} (throws NotFoundException); null: job_id is refused */
    public ScheduleResource(PreviewSchedule previewSchedule,
                            java.util.function.Function<String, io.forgeflow.domain.job.Job> jobs) {
        this.previewSchedule = Objects.requireNonNull(previewSchedule, "previewSchedule");
        this.jobs = jobs;
    }

    /** {@code {"items": [{"at", "local", "note"}]}}; {@code note} only when daylight saving moved or merged the fire. */
    public record PreviewResponse(List<Item> items) {
    }

    /** The wall-clock time with its offset, to the second: {@code 2026-03-08T03:00:00-04:00}. */
    static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX");

    /** {@code tick} and {@code jitter_seconds} only when the job's jitter moved the fire off its tick. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Item(String at, String local, String note, String tick,
                       @com.fasterxml.jackson.annotation.JsonProperty("jitter_seconds") Integer jitterSeconds) {
        static Item of(PreviewedFire fire) {
            boolean moved = fire.jitterSeconds() != 0;
            return new Item(Timestamps.format(fire.at()), LOCAL.format(fire.local()), fire.note(),
                    moved ? Timestamps.format(fire.tick()) : null, moved ? fire.jitterSeconds() : null);
        }
    }

    /**
     * The fires of {@code cron_expr} in {@code timezone}, inside {@code start_at}..{@code end_at} and at most
     * {@code max_runs} when given; or, with {@code job_id}, of that job's own schedule, controls, jitter and runs fired.
     */
    @GET
    @Path("preview")
    public PreviewResponse preview(@Context UriInfo uri) {
        Query q = Query.of(uri, "cron_expr", "timezone", "after", "count", "job_id", "start_at", "end_at", "max_runs");
        Instant after = after(q.get("after"));
        int count = count(q.get("count"));
        List<PreviewedFire> fires;
        if (q.get("job_id") != null) {
            if (jobs == null) {
                throw new InvalidQueryException("job_id", "job_id is not served by this node: give cron_expr");
            }
            io.forgeflow.domain.job.Job job = jobs.apply(JobResource.wellFormed(q.get("job_id")));
            for (String other : List.of("cron_expr", "timezone", "start_at", "end_at", "max_runs")) {
                if (q.get(other) != null) {
                    throw new InvalidQueryException(other, other + " comes from the job when job_id is given: leave "
                            + other + " out, or job_id to preview an expression");
                }
            }
            if (!job.spec().isRecurring()) {
                throw new InvalidQueryException("job_id", "job " + job.id() + " is a one-off job: it has no schedule "
                        + "to preview");
            }
            fires = previewSchedule.preview(job.spec().cronExpr(), job.spec().timezone(), job.spec().schedule(),
                    job.id(), job.schedule().firedRuns(), after, count);
        } else {
            io.forgeflow.domain.job.ScheduleControls controls = new io.forgeflow.domain.job.ScheduleControls(
                    time(q, "start_at"), time(q, "end_at"), maxRuns(q.get("max_runs")), null, null).validate(true);
            fires = previewSchedule.preview(q.get("cron_expr"), q.get("timezone"), controls, null, 0, after, count);
        }
        return new PreviewResponse(fires.stream().map(Item::of).collect(Collectors.toList()));
    }

    private static Instant time(Query q, String field) {
        String raw = q.get(field);
        if (raw == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(raw).toInstant();
        } catch (DateTimeException e) {
            throw new InvalidQueryException(field, field + " must be an RFC 3339 time such as "
                    + "\"2026-03-08T00:00:00Z\" (percent-encode a '+' offset as %2B), was '" + JsonBody.shorten(raw) + "'");
        }
    }

    static Integer maxRuns(String raw) {
        if (raw == null) {
            return null;
        }
        if (!raw.matches("[+-]?[0-9]{1,9}")) {
            throw new InvalidQueryException("max_runs", "max_runs must be a whole number from 1 to "
                    + io.forgeflow.domain.job.ScheduleControls.MAX_RUNS_LIMIT + ", was '" + JsonBody.shorten(raw) + "'");
        }
        return Integer.parseInt(raw);
    }

    static Instant after(String raw) {
        if (raw == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(raw).toInstant();
        } catch (DateTimeException e) {
            throw new InvalidQueryException("after", "after must be an RFC 3339 time such as \"2026-03-08T00:00:00Z\" "
                    + "(percent-encode a '+' offset as %2B), was '" + JsonBody.shorten(raw) + "'");
        }
    }

    static int count(String raw) {
        if (raw == null) {
            return PreviewSchedule.DEFAULT_COUNT;
        }
        String how = "count must be a whole number from 1 to " + PreviewSchedule.MAX_COUNT + " (default "
                + PreviewSchedule.DEFAULT_COUNT + "), was '" + JsonBody.shorten(raw) + "'";
        if (!raw.matches("[+-]?[0-9]{1,9}")) {
            throw new InvalidQueryException("count", how);
        }
        int count = Integer.parseInt(raw);
        if (count < 1 || count > PreviewSchedule.MAX_COUNT) {
            throw new InvalidQueryException("count", how);
        }
        return count;
    }
}
