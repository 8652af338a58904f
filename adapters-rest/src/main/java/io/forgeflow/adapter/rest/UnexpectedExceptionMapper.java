package io.forgeflow.adapter.rest;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The last resort: anything no other mapper claims is a bug (or an outage, such as a lost database), except a request
 * the HTTP server refused while reading it (its 4xx). The client gets 500 with a generic message and an error id; the log gets that id with the stack trace. Never a stack
 * trace in the body.
 */
public final class UnexpectedExceptionMapper implements ExceptionMapper<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(UnexpectedExceptionMapper.class);

    @Override
    public Response toResponse(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof BodyTooLargeException) {
                return ErrorBody.response(413, ApiException.tooLarge(((BodyTooLargeException) c).limit()).getMessage(), null);
            }
            if (c instanceof BodyTooSlowException slow) {
                ApiException refusal = slow.refusal();
                return ErrorBody.response(refusal.status(), refusal.getMessage(), null);
            }
            if (c instanceof org.eclipse.jetty.http.HttpException refused && refused.getCode() >= 400
                    && refused.getCode() < 500) {
                // the HTTP server refused the request while it was being read (a body below the minimum data rate,
                // a broken chunk): the client's error, not a bug
                int status = refused.getCode();
                return ErrorBody.response(status, status == 408
                        ? "the request body did not arrive in time (the node stopped waiting for it): send the request again"
                        : "the request could not be read: " + refused.getReason(), null);
            }
            if (c.getCause() == c) {
                break;
            }
        }
        String id = String.format("%016x", ThreadLocalRandom.current().nextLong());
        LOG.error("unexpected error {} while serving a request", id, t);
        return Response.status(500).type(jakarta.ws.rs.core.MediaType.APPLICATION_JSON_TYPE)
                .entity(ErrorBody.json("internal server error (error id " + id + "): the server logged the details; "
                        + "retry later, and report the error id if it persists", null, id, ErrorCodes.INTERNAL_ERROR, null))
                .build();
    }
}
