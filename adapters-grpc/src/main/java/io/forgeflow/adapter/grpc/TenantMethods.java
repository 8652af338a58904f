package io.forgeflow.adapter.grpc;

import com.google.rpc.Code;
import io.forgeflow.adapter.grpc.v1.BackfillJobRequest;
import io.forgeflow.adapter.grpc.v1.DeleteJobRequest;
import io.forgeflow.adapter.grpc.v1.GetBackfillRequest;
import io.forgeflow.adapter.grpc.v1.GetJobRequest;
import io.forgeflow.adapter.grpc.v1.GetRunRequest;
import io.forgeflow.adapter.grpc.v1.JobIdRequest;
import io.forgeflow.adapter.grpc.v1.PreviewRequest;
import io.forgeflow.adapter.grpc.v1.RunIdRequest;
import io.forgeflow.adapter.grpc.v1.UpdateJobRequest;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.port.TenantDirectory;
import io.forgeflow.domain.tenant.Tenants;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Decides the tenant every call acts in ({@link Tenancy}) and keeps it there (README "Tenants"), after the token is
 * known and before any service method runs: the one place gRPC decides isolation, as REST's TenantFilter.
 * <ul>
 *   <li>a tenant-bound token acts in its tenant; {@value Tenancy#METADATA} metadata naming another is refused
 *       (PERMISSION_DENIED, {@code tenant_forbidden}), and so is every method {@link #ROUTES} does not name;</li>
 *   <li>a cluster-wide token acts in the metadata's tenant, or in none;</li>
 *   <li>a call acting in a tenant that names another tenant's job or run by id is answered the NOT_FOUND of an
 *       unknown id, before the method runs: nothing tells it exists, nothing changes.</li>
 * </ul>
 * The table fails closed: a method added later is cluster-wide until someone puts it here.
 */
final class TenantMethods implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(TenantMethods.class);
    private static final String JOBS = "forgeflow.v1.JobService/";
    private static final String RUNS = "forgeflow.v1.RunService/";
    private static final String QUEUES = "forgeflow.v1.QueueService/";

    /**
     * What a method reaches when the call acts in one tenant: the kind of object its request names by id and how to
     * read that id (null: the request names none to check, e.g. an empty {@code job_id}).
     */
    record Route(TenantDirectory.Kind kind, Function<Object, String> id) {
        /** Acts in the call's tenant (submissions go to it, lists show it), naming nothing by id. */
        static final Route SCOPED = new Route(null, m -> null);
    }

    /**
     * <pre>
     * SubmitJob, SubmitBatch, ListJobs, ListRuns          the call's tenant
     * GetJob, UpdateJob, Pause/Resume/Cancel/Trigger/DeleteJob, BackfillJob, GetBackfill   job id (job_id)
     * GetRun, CancelRun, RequeueRun                         run id
     * ScheduleService/Preview                               job_id, when given
     * QueueService (every method)                           the call's tenant's queues
     * anything else (WatchRuns, TenantService, stats, nodes)   cluster-wide: the tenants' weights and
     *                                                       limits bind every tenant, so no tenant may read or set them
     * </pre>
     */
    static final Map<String, Route> ROUTES = Map.ofEntries(
            Map.entry(JOBS + "SubmitJob", Route.SCOPED),
            Map.entry(JOBS + "SubmitBatch", Route.SCOPED),
            Map.entry(JOBS + "ListJobs", Route.SCOPED),
            Map.entry(JOBS + "GetJob", job(GetJobRequest.class, GetJobRequest::getId)),
            Map.entry(JOBS + "UpdateJob", job(UpdateJobRequest.class, UpdateJobRequest::getId)),
            Map.entry(JOBS + "PauseJob", job(JobIdRequest.class, JobIdRequest::getId)),
            Map.entry(JOBS + "ResumeJob", job(JobIdRequest.class, JobIdRequest::getId)),
            Map.entry(JOBS + "CancelJob", job(JobIdRequest.class, JobIdRequest::getId)),
            Map.entry(JOBS + "TriggerJob", job(JobIdRequest.class, JobIdRequest::getId)),
            Map.entry(JOBS + "DeleteJob", job(DeleteJobRequest.class, DeleteJobRequest::getId)),
            Map.entry(JOBS + "BackfillJob", job(BackfillJobRequest.class, BackfillJobRequest::getId)),
            // a malformed backfill id is answered before the job is looked at: then there is nothing to hide
            Map.entry(JOBS + "GetBackfill", job(GetBackfillRequest.class,
                    r -> Ids.isWellFormed(r.getBackfillId()) ? r.getJobId() : null)),
            Map.entry(RUNS + "ListRuns", Route.SCOPED),
            Map.entry(RUNS + "GetRun", run(GetRunRequest.class, GetRunRequest::getId)),
            Map.entry(RUNS + "CancelRun", run(RunIdRequest.class, RunIdRequest::getId)),
            Map.entry(RUNS + "RequeueRun", run(RunIdRequest.class, RunIdRequest::getId)),
            Map.entry("forgeflow.v1.ScheduleService/Preview", job(PreviewRequest.class, PreviewRequest::getJobId)),
            Map.entry(QUEUES + "ListQueues", Route.SCOPED),
            Map.entry(QUEUES + "GetQueue", Route.SCOPED),
            Map.entry(QUEUES + "ConfigureQueue", Route.SCOPED),
            Map.entry(QUEUES + "PauseQueue", Route.SCOPED),
            Map.entry(QUEUES + "ResumeQueue", Route.SCOPED));

    private final TenantDirectory directory;
    private final Predicate<Throwable> databaseAway;

    TenantMethods(TenantDirectory directory, Predicate<Throwable> databaseAway) {
        this.directory = Objects.requireNonNull(directory, "directory");
        this.databaseAway = databaseAway;
    }

    private static <M> Route job(Class<M> type, Function<M, String> id) {
        return new Route(TenantDirectory.Kind.JOB, m -> id.apply(type.cast(m)));
    }

    private static <M> Route run(Class<M> type, Function<M, String> id) {
        return new Route(TenantDirectory.Kind.RUN, m -> id.apply(type.cast(m)));
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                      ServerCallHandler<Q, A> next) {
        String method = call.getMethodDescriptor().getFullMethodName();
        Caller caller = Authentication.CALLER.get();
        String bound = caller == null ? null : caller.tenant();
        Tenancy tenancy;
        try {
            String named = named(headers);
            if (bound != null && named != null && !bound.equals(named)) {
                throw Tenancy.forbidden(bound, named);
            }
            tenancy = bound != null ? new Tenancy(bound, true) : named != null ? new Tenancy(named, false)
                    : Tenancy.CLUSTER;
        } catch (RuntimeException e) {
            return refuse(call, GrpcErrors.of(e, databaseAway));
        }
        Route route = ROUTES.get(method);
        if (tenancy.bound() && route == null) {
            LOG.info("refused gRPC {} to {}: cluster-wide, and the token is bound to tenant {}", method,
                    caller.name(), bound);
            return refuse(call, GrpcErrors.status(Code.PERMISSION_DENIED, "this token acts in tenant '" + bound
                    + "' only, and " + method + " is cluster-wide: use a cluster-wide token ("
                    + Authentication.VARIABLE + ")", "tenant_forbidden", null));
        }
        ServerCall.Listener<Q> listener = Contexts.interceptCall(
                Context.current().withValue(Tenancy.CURRENT, tenancy), call, headers, next);
        if (tenancy.tenant() == null || route == null || route.kind() == null) {
            return listener;
        }
        return new OwnedOnly<>(listener, call, tenancy.tenant(), route);
    }

    /** The metadata's tenant, checked; null when not sent. */
    private static String named(Metadata headers) {
        Iterable<String> values = headers.getAll(Tenancy.KEY);
        if (values == null) {
            return null;
        }
        Iterator<String> it = values.iterator();
        String value = it.next();
        if (it.hasNext()) {
            throw new ValidationException("tenant", "send the " + Tenancy.METADATA + " metadata once");
        }
        return Tenants.require("tenant", value.strip());
    }

    private static <Q, A> ServerCall.Listener<Q> refuse(ServerCall<Q, A> call, StatusRuntimeException e) {
        call.close(e.getStatus(), e.getTrailers() == null ? new Metadata() : e.getTrailers());
        return new ServerCall.Listener<>() {
        };
    }

    /** Passes the request on only when the object it names is not another tenant's. */
    private final class OwnedOnly<Q, A> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
        private final ServerCall<Q, A> call;
        private final String tenant;
        private final Route route;
        private boolean refused;

        OwnedOnly(ServerCall.Listener<Q> delegate, ServerCall<Q, A> call, String tenant, Route route) {
            super(delegate);
            this.call = call;
            this.tenant = tenant;
            this.route = route;
        }

        @Override
        public void onMessage(Q message) {
            if (refused) {
                return;
            }
            String id = route.id().apply(message);
            if (id != null && !id.isEmpty()) {
                try {
                    Optional<String> owner = directory.tenantOf(route.kind(), id);
                    if (owner.isPresent() && !owner.get().equals(tenant)) {
                        // exactly what the method answers for an id that names nothing
                        throw new NotFoundException(route.kind().name().toLowerCase(Locale.ROOT), Convert.shorten(id));
                    }
                } catch (RuntimeException e) {
                    refused = true;
                    StatusRuntimeException status = GrpcErrors.of(e, databaseAway);
                    call.close(status.getStatus(), status.getTrailers() == null ? new Metadata()
                            : status.getTrailers());
                    return;
                }
            }
            super.onMessage(message);
        }

        @Override
        public void onHalfClose() {
            if (!refused) {
                super.onHalfClose();
            }
        }

        @Override
        public void onReady() {
            if (!refused) {
                super.onReady();
            }
        }
    }
}
