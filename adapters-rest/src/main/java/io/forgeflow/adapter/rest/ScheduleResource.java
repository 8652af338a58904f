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

    public ScheduleResource(PreviewSchedule previewSchedule) {
        this.previewSchedule = Objects.requireNonNull(previewSchedule, "previewSchedule");
    }

    /** {@code {"items": [{"at", "local", "note"}]}}; {@code note} only when daylight saving moved or merged the fire. */
    public record PreviewResponse(List<Item> items) {
    }

    /** The wall-clock time with its offset, to the second: {@code 2026-03-08T03:00:00-04:00}. */
    static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX");

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Item(String at, String local, String note) {
        static Item of(PreviewedFire fire) {
            return new Item(Timestamps.format(fire.at()), LOCAL.format(fire.local()), fire.note());
        }
    }

    @GET
    @Path("preview")
    public PreviewResponse preview(@Context UriInfo uri) {
        Query q = Query.of(uri, "cron_expr", "timezone", "after", "count");
        List<PreviewedFire> fires = previewSchedule.preview(q.get("cron_expr"), q.get("timezone"), after(q.get("after")),
                count(q.get("count")));
        return new PreviewResponse(fires.stream().map(Item::of).collect(Collectors.toList()));
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
