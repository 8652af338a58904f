package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.forgeflow.application.schedule.BackfillJob;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Backfill;
import io.forgeflow.domain.port.JobRepository.BackfillOutcome;
import io.forgeflow.domain.port.JobRepository.BackfillProgress;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import java.io.InputStream;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code POST /api/jobs/{id}/backfill} and {@code GET /api/jobs/{id}/backfill/{backfill_id}} (API.md, "Backfill"):
 * one run per tick of a recurring job's schedule over a range, as one backfill whose progress is its runs by status.
 */
@Path("/api/jobs/{id}/backfill")
@Produces(MediaType.APPLICATION_JSON)
public final class BackfillResource {
    static final List<String> FIELDS = List.of("from", "to", "overlap", "only_missing");
    static final String EXAMPLE = "{\"from\": \"2026-04-01T00:00:00Z\", \"to\": \"2026-04-08T00:00:00Z\"}";
    private final BackfillJob backfillJob;

    public BackfillResource(BackfillJob backfillJob) {
        this.backfillJob = Objects.requireNonNull(backfillJob, "backfillJob");
    }

    /** A backfill and its runs counted by status ({@code pending}, {@code running}, {@code succeeded} ...). */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"id", "job_id", "from", "to", "overlap", "ticks", "created", "skipped", "created_at", "done",
            "runs"})
    public record BackfillResponse(@JsonProperty("id") String id, @JsonProperty("job_id") String jobId,
                                   @JsonProperty("from") String from, @JsonProperty("to") String to,
                                   @JsonProperty("overlap") String overlap, @JsonProperty("ticks") int ticks,
                                   @JsonProperty("created") int created, @JsonProperty("skipped") int skipped,
                                   @JsonProperty("created_at") String createdAt, @JsonProperty("done") boolean done,
                                   @JsonProperty("runs") Map<String, Long> runs) {
        static BackfillResponse of(BackfillProgress p) {
            return new BackfillResponse(p.id(), p.jobId(), Timestamps.format(p.from()), Timestamps.format(p.to()),
                    p.overlap(), p.ticks(), p.created(), p.ticks() - p.created(), Timestamps.format(p.createdAt()),
                    p.done(), new java.util.TreeMap<>(p.runs()));
        }
    }

    /** 201 with the backfill; {@code created: 0} when every tick of the range already had a run. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response backfill(@PathParam("id") String id, InputStream body, @Context UriInfo uri) {
        Map<String, Object> fields = JsonBody.readObject(body, EXAMPLE);
        for (String key : fields.keySet()) {
            if (!FIELDS.contains(key)) {
                throw new ValidationException(JsonBody.shorten(key), "unknown field '" + JsonBody.shorten(key)
                        + "': a backfill has " + String.join(", ", FIELDS));
            }
        }
        Object onlyMissing = fields.get("only_missing");
        if (onlyMissing != null && !(onlyMissing instanceof Boolean)) {
            throw new ValidationException("only_missing", "only_missing must be true or false, not "
                    + JobSubmission.kind(onlyMissing));
        }
        Object overlap = fields.get("overlap");
        if (overlap != null && !(overlap instanceof String)) {
            throw new ValidationException("overlap", "overlap must be a string (\"allow\", \"skip\" or "
                    + "\"queue_one\"), not " + JobSubmission.kind(overlap));
        }
        Backfill request = Backfill.of(time(fields, "from"), time(fields, "to"), (String) overlap,
                (Boolean) onlyMissing);
        BackfillOutcome outcome = backfillJob.backfill(JobResource.wellFormed(id), request);
        BackfillResponse answer = BackfillResponse.of(outcome.progress());
        return Response.created(uri.getBaseUriBuilder().path("api/jobs").path(id).path("backfill")
                .path(answer.id()).build()).entity(answer).build();
    }

    @GET
    @Path("{backfill_id}")
    public BackfillResponse progress(@PathParam("id") String id, @PathParam("backfill_id") String backfillId) {
        if (!Ids.isWellFormed(backfillId)) {
            throw new NotFoundException("backfill", JsonBody.shorten(backfillId));
        }
        return BackfillResponse.of(backfillJob.progress(JobResource.wellFormed(id), backfillId));
    }

    private static Instant time(Map<String, Object> fields, String field) {
        Object v = fields.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String text)) {
            throw new ValidationException(field, field + " must be an RFC 3339 time such as \"2026-04-01T00:00:00Z\", "
                    + "not " + JobSubmission.kind(v));
        }
        try {
            return OffsetDateTime.parse(text.trim()).toInstant();
        } catch (DateTimeException e) {
            throw new ValidationException(field, field + " must be an RFC 3339 time such as \"2026-04-01T00:00:00Z\", "
                    + "was '" + JsonBody.shorten(text) + "'");
        }
    }
}
