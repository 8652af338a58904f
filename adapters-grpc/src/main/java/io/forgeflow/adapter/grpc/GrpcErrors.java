package io.forgeflow.adapter.grpc;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.UnavailableException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.run.IllegalRunTransitionException;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.UUID;
import java.util.function.Predicate;

/**
 * The domain's exceptions as gRPC statuses, with REST's vocabulary: a {@code google.rpc.ErrorInfo} whose reason is
 * REST's {@code code} ({@code validation_failed}, {@code idempotency_conflict} ...), and for bad input a
 * {@code google.rpc.BadRequest} naming the field.
 */
final class GrpcErrors {
    static final String DOMAIN = "forgeflow.io";
    private static final Logger LOG = LoggerFactory.getLogger(GrpcErrors.class);

    private GrpcErrors() {
    }

    static StatusRuntimeException of(Throwable t, Predicate<Throwable> databaseAway) {
        if (t instanceof StatusRuntimeException s) {
            return s;
        }
        if (t instanceof ValidationException e) {
            return invalid(e.field(), e.getMessage(), "validation_failed");
        }
        if (t instanceof InvalidQueryException e) {
            return invalid(e.field(), e.getMessage(), "bad_request");
        }
        if (t instanceof NotFoundException e) {
            return status(Code.NOT_FOUND, e.getMessage(), "not_found", null);
        }
        if (t instanceof ConflictException e) {
            String code = e.code() == null ? "conflict" : e.code();
            // a key already held names an existing thing; any other conflict is a state the call raced with
            boolean exists = ConflictException.IDEMPOTENCY_CONFLICT.equals(code)
                    || ConflictException.UNIQUE_CONFLICT.equals(code);
            return status(exists ? Code.ALREADY_EXISTS : Code.ABORTED, e.getMessage(), code, e.field());
        }
        if (t instanceof IllegalRunTransitionException e) {
            return status(Code.ABORTED, e.getMessage() + "; read the run again and retry", "conflict", null);
        }
        if (UnavailableException.in(t) || databaseAway.test(t)) {
            return status(Code.UNAVAILABLE, "the database is unavailable: retry shortly", "unavailable", null);
        }
        String id = UUID.randomUUID().toString();
        LOG.error("gRPC call failed (error id {})", id, t);
        return status(Code.INTERNAL, "internal error " + id + ": the node logged it under this id", "internal_error",
                null);
    }

    static StatusRuntimeException invalid(String field, String message, String reason) {
        com.google.rpc.Status.Builder status = com.google.rpc.Status.newBuilder()
                .setCode(Code.INVALID_ARGUMENT.getNumber()).setMessage(message)
                .addDetails(Any.pack(ErrorInfo.newBuilder().setDomain(DOMAIN).setReason(reason).build()));
        if (field != null) {
            status.addDetails(Any.pack(BadRequest.newBuilder().addFieldViolations(
                    BadRequest.FieldViolation.newBuilder().setField(field).setDescription(message)).build()));
        }
        return StatusProto.toStatusRuntimeException(status.build());
    }

    static StatusRuntimeException status(Code code, String message, String reason, String field) {
        ErrorInfo.Builder info = ErrorInfo.newBuilder().setDomain(DOMAIN).setReason(reason);
        if (field != null) {
            info.putMetadata("field", field);
        }
        return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder().setCode(code.getNumber())
                .setMessage(message).addDetails(Any.pack(info.build())).build());
    }
}
