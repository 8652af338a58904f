package io.forgeflow.adapter.rest;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

import java.util.Objects;

/**
 * {@code GET /api/events}: Server-Sent Events, one per run state change anywhere in the cluster ({@link EventStreams}
 * describes the format). A client that reconnects sends the id of the last event it saw as {@code Last-Event-ID}
 * (browsers' EventSource does so by itself), or as {@code ?last_event_id=} where it cannot set headers.
 */
@Path("/api/events")
public final class EventResource {
    static final String EVENT_STREAM = "text/event-stream";

    private final EventStreams streams;

    public EventResource(EventStreams streams) {
        this.streams = Objects.requireNonNull(streams, "streams");
    }

    @GET
    @Produces(EVENT_STREAM)
    public Response events(@HeaderParam("Last-Event-ID") String lastEventId,
                           @QueryParam("last_event_id") String lastEventIdParam) {
        String resumeAfter = lastEventId != null && !lastEventId.isBlank() ? lastEventId : lastEventIdParam;
        return Response.ok(streams.open(resumeAfter), EVENT_STREAM)
                .header("Cache-Control", "no-cache")
                .header("X-Accel-Buffering", "no") // nginx: do not buffer the stream
                .build();
    }
}
