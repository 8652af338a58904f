package io.forgeflow.adapter.grpc;

import com.google.protobuf.MessageLite;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;

/**
 * REST's body limits on requests: 1 MiB, and 16 MiB for a batch ({@code POST /api/batches}). The transport refuses
 * anything over 16 MiB before it is read; this refuses the rest over 1 MiB once parsed. RESOURCE_EXHAUSTED either way.
 */
final class MessageLimit implements ServerInterceptor {
    static final int MAX_BYTES = 1 << 20;
    static final String BATCH = "forgeflow.v1.JobService/SubmitBatch";

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                       ServerCallHandler<Q, A> next) {
        String method = call.getMethodDescriptor().getFullMethodName();
        ServerCall.Listener<Q> listener = next.startCall(call, headers);
        if (BATCH.equals(method) || !method.startsWith("forgeflow.")) {
            return listener;
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            private boolean refused;

            @Override
            public void onMessage(Q message) {
                if (message instanceof MessageLite m && m.getSerializedSize() > MAX_BYTES) {
                    refused = true;
                    StatusRuntimeException e = GrpcErrors.status(com.google.rpc.Code.RESOURCE_EXHAUSTED, "the request "
                            + "is " + m.getSerializedSize() + " bytes: at most " + MAX_BYTES + " (REST's body limit; "
                            + "SubmitBatch takes up to " + GrpcApi.MAX_MESSAGE_BYTES + ")", "payload_too_large", null);
                    call.close(e.getStatus(), e.getTrailers() == null ? new Metadata() : e.getTrailers());
                    return;
                }
                super.onMessage(message);
            }

            @Override
            public void onHalfClose() {
                if (!refused) {
                    super.onHalfClose();
                }
            }
        };
    }
}
