package io.forgeflow.adapter.grpc;

import io.forgeflow.application.support.CallDeadline;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Answers a unary call with what the use case returned, or its exception as a status. A call with a deadline runs
 * under it ({@link CallDeadline}): its database statements are cancelled when the client stops waiting, so a call the
 * client saw fail with DEADLINE_EXCEEDED changes nothing afterwards.
 */
final class Unary {
    private final Predicate<Throwable> databaseAway;

    Unary(Predicate<Throwable> databaseAway) {
        this.databaseAway = databaseAway;
    }

    <T> void answer(StreamObserver<T> observer, Supplier<T> call) {
        Context context = Context.current();
        if (context.isCancelled()) {
            // the deadline passed (or the client left) before the use case ran: it does not run
            observer.onError(Status.fromThrowable(context.cancellationCause())
                    .augmentDescription("not run: the call was over before it started").asRuntimeException());
            return;
        }
        Deadline deadline = context.getDeadline();
        T answer;
        try {
            answer = deadline == null ? call.get()
                    : CallDeadline.within(deadline.timeRemaining(TimeUnit.NANOSECONDS), call);
        } catch (RuntimeException e) {
            observer.onError(deadline != null && deadline.isExpired()
                    ? Status.DEADLINE_EXCEEDED.withDescription("stopped at the call's deadline: nothing was changed "
                            + "by the statement it cancelled").withCause(e).asRuntimeException()
                    : GrpcErrors.of(e, databaseAway));
            return;
        }
        observer.onNext(answer);
        observer.onCompleted();
    }
}
