package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.UnavailableException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * The last resort: anything no other mapper claims is a bug, except a request the HTTP server refused while reading it
 * (its 4xx) and a failure because the database is away (a restart, killed connections, the pool's timeout: told by
 * the classifier the server gives, by cause chain and SQLSTATE), which answers 503 {@code unavailable} with
 * {@code Retry-After}. A bug gets 500 with a generic message and an error id; the log gets that id with the stack
 * trace. Never a stack trace in the body.
 */
public final class UnexpectedExceptionMapper implements ExceptionMapper<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(UnexpectedExceptionMapper.class);
    /** Seconds a client waits before it sends the request again, on a 503 {@code unavailable}. */
    static final int RETRY_AFTER_SECONDS = 2;
    private static final long WARN_EVERY_NANOS = 5_000_000_000L;

    private final Predicate<Throwable> databaseAway;
    private volatile long lastWarning = System.nanoTime() - WARN_EVERY_NANOS;

    /** Only the domain's {@link UnavailableException} is an outage (no database classifier). */
    public UnexpectedExceptionMapper() {
        this(t -> false);
    }

    /** @param databaseAway whether a failure happened because the database is away (its cause chain decides) */
    public UnexpectedExceptionMapper(Predicate<Throwable> databaseAway) {
        this.databaseAway = Objects.requireNonNull(databaseAway, "databaseAway");
    }

    @Override
    public Response toResponse(Throwable t) {
        if (UnavailableException.in(t) || databaseAway.test(t)) {
            return unavailable(t);
        }
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

    private Response unavailable(Throwable t) {
        long now = System.nanoTime();
        if (now - lastWarning >= WARN_EVERY_NANOS) { // an outage fails every request: one line per 5 s is enough
            lastWarning = now;
            LOG.warn("the database is unavailable; answering 503 until it is back: {}", t.toString());
        }
        return Response.status(503).type(jakarta.ws.rs.core.MediaType.APPLICATION_JSON_TYPE)
                .header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS))
                .entity(ErrorBody.json("the database is unavailable (restarting, failing over, or its connections were "
                        + "ended): retry after " + RETRY_AFTER_SECONDS + " s; a write answered 503 may or may not have "
                        + "been stored if the connection broke during its commit, so retry writes with the same "
                        + "idempotency_key", null, null, ErrorCodes.UNAVAILABLE, null))
                .build();
    }
}
