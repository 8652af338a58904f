package io.forgeflow.adapter.grpc;

import com.google.rpc.Code;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Map;

/**
 * Bearer tokens and scopes on every method but health and reflection: {@code authorization: Bearer <token>} metadata
 * with REST's tokens and REST's scopes per action (API.md's table). What the table does not name needs {@code admin}.
 * A tenant-bound token is kept in its tenant by {@link TenantMethods}, which runs after this.
 */
final class Authentication implements ServerInterceptor {
    static final Context.Key<Caller> CALLER = Context.key("forgeflow-caller");
    /** W3C Trace Context, continued as REST does from its headers. */
    static final Context.Key<io.forgeflow.domain.trace.TraceContext> TRACE = Context.key("forgeflow-trace");
    static final Metadata.Key<String> TRACEPARENT = Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> TRACESTATE = Metadata.Key.of("tracestate", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final Logger LOG = LoggerFactory.getLogger(Authentication.class);
    /** The scope each method needs, as REST's route for the same action. */
    static final Map<String, String> SCOPES = Map.ofEntries(
            Map.entry("forgeflow.v1.JobService/SubmitJob", "submit"),
            Map.entry("forgeflow.v1.JobService/SubmitBatch", "submit"),
            Map.entry("forgeflow.v1.JobService/UpdateJob", "submit"),
            Map.entry("forgeflow.v1.JobService/GetJob", "read"),
            Map.entry("forgeflow.v1.JobService/ListJobs", "read"),
            Map.entry("forgeflow.v1.JobService/PauseJob", "operate"),
            Map.entry("forgeflow.v1.JobService/ResumeJob", "operate"),
            Map.entry("forgeflow.v1.JobService/CancelJob", "operate"),
            Map.entry("forgeflow.v1.JobService/TriggerJob", "operate"),
            Map.entry("forgeflow.v1.JobService/DeleteJob", "operate"),
            Map.entry("forgeflow.v1.JobService/BackfillJob", "operate"),
            Map.entry("forgeflow.v1.JobService/GetBackfill", "read"),
            Map.entry("forgeflow.v1.RunService/GetRun", "read"),
            Map.entry("forgeflow.v1.RunService/ListRuns", "read"),
            Map.entry("forgeflow.v1.RunService/WatchRuns", "read"),
            Map.entry("forgeflow.v1.RunService/CancelRun", "operate"),
            Map.entry("forgeflow.v1.RunService/RequeueRun", "operate"),
            Map.entry("forgeflow.v1.QueueService/ListQueues", "read"),
            Map.entry("forgeflow.v1.QueueService/GetQueue", "read"),
            Map.entry("forgeflow.v1.QueueService/ConfigureQueue", "operate"),
            Map.entry("forgeflow.v1.QueueService/PauseQueue", "operate"),
            Map.entry("forgeflow.v1.QueueService/ResumeQueue", "operate"),
            Map.entry("forgeflow.v1.TenantService/ListTenants", "read"),
            Map.entry("forgeflow.v1.TenantService/GetTenant", "read"),
            // REST's PUT /api/tenants/{name}: weights and limits bind every tenant, so admin
            Map.entry("forgeflow.v1.TenantService/ConfigureTenant", "admin"),
            Map.entry("forgeflow.v1.ScheduleService/Preview", "read"),
            Map.entry("forgeflow.v1.ClusterService/GetStats", "read"),
            Map.entry("forgeflow.v1.ClusterService/ListNodes", "read"));
    static final String VARIABLE = "FORGEFLOW_API_TOKENS";

    private final Caller.Tokens tokens;

    /** @param tokens null: no token configured, every method is open (the server allows that on loopback only) */
    Authentication(Caller.Tokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                       ServerCallHandler<Q, A> next) {
        String method = call.getMethodDescriptor().getFullMethodName();
        Context context = Context.current().withValue(TRACE,
                io.forgeflow.domain.trace.TraceContext.parse(headers.get(TRACEPARENT), headers.get(TRACESTATE)));
        if (tokens == null || open(method)) {
            return Contexts.interceptCall(context, call, headers, next);
        }
        String header = headers.get(AUTHORIZATION);
        String token = bearer(header);
        Caller caller = token == null ? null : tokens.authenticate(token);
        if (caller == null) {
            String message = header == null ? "authentication required: send the metadata \"authorization: Bearer "
                    + "<token>\" with a token configured on the server (" + VARIABLE + ")"
                    : token == null ? "malformed authorization metadata: send \"authorization: Bearer <token>\""
                    : "the bearer token is not valid: send a token configured on the server (" + VARIABLE + ")";
            return refuse(call, Code.UNAUTHENTICATED, message, "unauthorized");
        }
        String scope = SCOPES.getOrDefault(method, "admin");
        if (!caller.has(scope)) {
            LOG.info("refused gRPC {} to {}: needs scope {}", method, caller.name(), scope);
            return refuse(call, Code.PERMISSION_DENIED, "this token lacks the '" + scope + "' scope that " + method
                    + " needs: use a token with " + scope + ("admin".equals(scope) ? "" : " or admin")
                    + " (" + VARIABLE + ")", "forbidden");
        }
        return Contexts.interceptCall(context.withValue(CALLER, caller), call, headers, next);
    }

    /** Health checks and reflection need no token, as REST's probes and OpenAPI document. */
    static boolean open(String method) {
        return method.startsWith("grpc.health.v1.") || method.startsWith("grpc.reflection.");
    }

    /**
     * A {@code submit:<executor>} token may submit to its executors only: PERMISSION_DENIED naming the scope it
     * lacks otherwise. Without tokens (no caller) anything goes.
     */
    static void checkSubmit(String executor) {
        Caller caller = CALLER.get();
        if (caller == null || executor == null || caller.maySubmit(executor)) {
            return;
        }
        String scope = "submit:" + executor;
        throw GrpcErrors.status(Code.PERMISSION_DENIED, "this token lacks the '" + scope + "' scope that submitting "
                + executor + " jobs needs (it may submit to " + String.join(", ", caller.submitExecutors().stream()
                .sorted().toList()) + "): use a token with " + scope + ", submit or admin (" + VARIABLE + ")",
                "forbidden", "executor");
    }

    static String bearer(String header) {
        if (header == null) {
            return null;
        }
        String h = header.strip();
        if (h.length() <= 7 || !h.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
            return null;
        }
        String token = h.substring(7).strip();
        return token.isEmpty() ? null : token;
    }

    private static <Q, A> ServerCall.Listener<Q> refuse(ServerCall<Q, A> call, Code code, String message,
                                                      String reason) {
        StatusRuntimeException e = GrpcErrors.status(code, message, reason, null);
        call.close(e.getStatus(), e.getTrailers() == null ? new Metadata() : e.getTrailers());
        return new ServerCall.Listener<>() {
        };
    }
}
