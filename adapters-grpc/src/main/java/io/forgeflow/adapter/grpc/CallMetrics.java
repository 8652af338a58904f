package io.forgeflow.adapter.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/** Counts every call by method and status code, and its duration, into what the server records them in. */
final class CallMetrics implements ServerInterceptor {
    private final GrpcApi.CallRecorder recorder;

    CallMetrics(GrpcApi.CallRecorder recorder) {
        this.recorder = recorder;
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                       ServerCallHandler<Q, A> next) {
        long start = System.nanoTime();
        String method = call.getMethodDescriptor().getFullMethodName();
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                recorder.record(method, status.getCode().name(), System.nanoTime() - start);
                super.close(status, trailers);
            }
        }, headers);
    }
}
