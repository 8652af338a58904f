package io.forgeflow.adapter.rest;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;

import java.io.IOException;
import java.util.Objects;

/**
 * {@code GET /api/events}: Server-Sent Events, one per run state change anywhere in the cluster ({@link EventStreams}
 * describes the format). A client that reconnects sends the id of the last event it saw as {@code Last-Event-ID}
 * (browsers' EventSource does so by itself), or as {@code ?last_event_id=} where it cannot set headers.
 *
 * <p>Jersey authenticates the request and suspends it; from then on the stream writes to the asynchronous servlet
 * response itself, without blocking (Jersey's own chunked output would block a shared thread on a slow client).
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
    public void events(@HeaderParam("Last-Event-ID") String lastEventId,
                       @QueryParam("last_event_id") String lastEventIdParam,
                       @Context HttpServletRequest request, @Context HttpServletResponse response,
                       @Context jakarta.ws.rs.container.ContainerRequestContext context,
                       @Suspended AsyncResponse suspended) {
        try {
            streams.reserve();
        } catch (ApiException refused) {
            suspended.resume(refused);
            return;
        }
        String resumeAfter = lastEventId != null && !lastEventId.isBlank() ? lastEventId : lastEventIdParam;
        try {
            // a request acting in a tenant sees its tenant's events only (README "Tenants")
            streams.open(resumeAfter, Tenancy.of(context).tenant(), request.getAsyncContext(), response);
        } catch (IOException | RuntimeException e) {
            suspended.resume(e);
        }
    }
}
