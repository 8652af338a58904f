package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.run.IllegalRunTransitionException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

import java.util.List;

/**
 * The mappers from the domain's exceptions to the API's statuses: validation 422, bad query 400, unknown id 404,
 * conflicting state 409. Each is its own class because JAX-RS picks a mapper by the exception's type.
 */
public final class ExceptionMappers {
    private ExceptionMappers() {
    }

    /** Every mapper of this adapter, most specific first (the order does not matter to Jersey). */
    static List<Object> all() {
        return all(t -> false);
    }

    /** Every mapper, with {@code databaseAway} telling the failures of an absent database (503, not 500). */
    static List<Object> all(java.util.function.Predicate<Throwable> databaseAway) {
        return List.of(new Validation(), new InvalidQuery(), new NotFound(), new Conflict(), new IllegalTransition(),
                new Api(), new JsonProcessingExceptionMapper(), new WebApplicationExceptionMapper(),
                new UnexpectedExceptionMapper(databaseAway));
    }

    /** A field breaks a rule: 422 naming it. */
    public static final class Validation implements ExceptionMapper<ValidationException> {
        @Override
        public Response toResponse(ValidationException e) {
            return ErrorBody.response(422, e.getMessage(), e.field());
        }
    }

    /** A malformed query parameter: 400 naming it. */
    public static final class InvalidQuery implements ExceptionMapper<InvalidQueryException> {
        @Override
        public Response toResponse(InvalidQueryException e) {
            return ErrorBody.response(400, e.getMessage(), e.field());
        }
    }

    /** No job or run with this id: 404. */
    public static final class NotFound implements ExceptionMapper<NotFoundException> {
        @Override
        public Response toResponse(NotFoundException e) {
            return ErrorBody.response(404, e.getMessage(), null);
        }
    }

    /** The request conflicts with the current state or an idempotency key: 409. */
    public static final class Conflict implements ExceptionMapper<ConflictException> {
        @Override
        public Response toResponse(ConflictException e) {
            return Response.status(409).type(jakarta.ws.rs.core.MediaType.APPLICATION_JSON_TYPE)
                    .entity(ErrorBody.json(e.getMessage(), e.field(), null,
                            e.code() == null ? ErrorCodes.CONFLICT : e.code(), e.jobId())).build();
        }
    }

    /** A run moved on while the request ran (a lost race the use case did not turn into a conflict): 409. */
    public static final class IllegalTransition implements ExceptionMapper<IllegalRunTransitionException> {
        @Override
        public Response toResponse(IllegalRunTransitionException e) {
            return ErrorBody.response(409, e.getMessage() + "; read the run again and retry", null);
        }
    }

    /** What this adapter refused itself. */
    public static final class Api implements ExceptionMapper<ApiException> {
        @Override
        public Response toResponse(ApiException e) {
            return e.code() == null ? ErrorBody.response(e.status(), e.getMessage(), e.field())
                    : ErrorBody.response(e.status(), e.getMessage(), e.field(), e.code());
        }
    }
}
