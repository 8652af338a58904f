package io.forgeflow.adapter.grpc;

import io.grpc.stub.StreamObserver;

import java.util.function.Predicate;
import java.util.function.Supplier;

/** Answers a unary call with what the use case returned, or its exception as a status. */
final class Unary {
    private final Predicate<Throwable> databaseAway;

    Unary(Predicate<Throwable> databaseAway) {
        this.databaseAway = databaseAway;
    }

    <T> void answer(StreamObserver<T> observer, Supplier<T> call) {
        if (io.grpc.Context.current().isCancelled()) {
            // the deadline passed (or the client left) before the use case ran: it does not run
            observer.onError(io.grpc.Status.fromThrowable(io.grpc.Context.current().cancellationCause())
                    .augmentDescription("not run: the call was over before it started").asRuntimeException());
            return;
        }
        T answer;
        try {
            answer = call.get();
        } catch (RuntimeException e) {
            observer.onError(GrpcErrors.of(e, databaseAway));
            return;
        }
        observer.onNext(answer);
        observer.onCompleted();
    }
}
