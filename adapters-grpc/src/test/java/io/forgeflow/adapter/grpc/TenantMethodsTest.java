package io.forgeflow.adapter.grpc;

import com.google.protobuf.Descriptors;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.rpc.ErrorInfo;
import io.forgeflow.adapter.grpc.v1.ClusterServiceGrpc;
import io.forgeflow.adapter.grpc.v1.GetJobRequest;
import io.forgeflow.adapter.grpc.v1.Job;
import io.forgeflow.adapter.grpc.v1.JobServiceGrpc;
import io.forgeflow.adapter.grpc.v1.ListQueuesRequest;
import io.forgeflow.adapter.grpc.v1.ListQueuesResponse;
import io.forgeflow.adapter.grpc.v1.QueueServiceGrpc;
import io.forgeflow.adapter.grpc.v1.RunServiceGrpc;
import io.forgeflow.adapter.grpc.v1.ScheduleServiceGrpc;
import io.forgeflow.adapter.grpc.v1.SubmitJobRequest;
import io.forgeflow.adapter.grpc.v1.SubmitJobResponse;
import io.forgeflow.adapter.grpc.v1.TenantServiceGrpc;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.port.TenantDirectory;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TenantMethods} over real HTTP/2 on loopback, in front of stand-in services that count their calls: another
 * tenant's id is the NOT_FOUND of an unknown id and the method never runs; cluster-wide methods refuse a tenant-bound
 * caller; the metadata picks a cluster-wide caller's tenant. And the table: every method is in it or cluster-wide.
 */
class TenantMethodsTest {
    static final String BETAS = UUID.randomUUID().toString();
    static final String ACMES = UUID.randomUUID().toString();
    static final Metadata.Key<String> AS = Metadata.Key.of("test-bound-to", Metadata.ASCII_STRING_MARSHALLER);

    final AtomicInteger ran = new AtomicInteger();
    Server server;
    ManagedChannel channel;

    /** Stands in for Authentication: the caller is bound to the tenant the test metadata names, or cluster-wide. */
    static final ServerInterceptor CALLERS = new ServerInterceptor() {
        @Override
        public <Q, A> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, A> call, Metadata headers,
                                                                  io.grpc.ServerCallHandler<Q, A> next) {
            Caller caller = new Caller("test", Set.of("admin"), Set.of(), headers.get(AS));
            return Contexts.interceptCall(Context.current().withValue(Authentication.CALLER, caller), call, headers,
                    next);
        }
    };

    final class Jobs extends JobServiceGrpc.JobServiceImplBase {
        @Override
        public void getJob(GetJobRequest request, StreamObserver<Job> observer) {
            ran.incrementAndGet();
            String owner = DIRECTORY.get(request.getId());
            if (owner == null) {
                observer.onError(GrpcErrors.of(new NotFoundException("job", request.getId()), t -> false));
                return;
            }
            observer.onNext(Job.newBuilder().setId(request.getId()).setTenant(owner).build());
            observer.onCompleted();
        }

        @Override
        public void submitJob(SubmitJobRequest request, StreamObserver<SubmitJobResponse> observer) {
            ran.incrementAndGet();
            new Unary(t -> false).answer(observer, () -> SubmitJobResponse.newBuilder().setJob(Job.newBuilder()
                    .setTenant(Tenancy.current().forSubmission(request.getTenant()))).build());
        }
    }

    final class Queues extends QueueServiceGrpc.QueueServiceImplBase {
        @Override
        public void listQueues(ListQueuesRequest request, StreamObserver<ListQueuesResponse> observer) {
            ran.incrementAndGet();
            new Unary(t -> false).answer(observer, () -> ListQueuesResponse.newBuilder().addQueues(
                    io.forgeflow.adapter.grpc.v1.Queue.newBuilder().setTenant(String.valueOf(
                            Tenancy.current().forList(request.getTenant())))).build());
        }
    }

    final class Cluster extends ClusterServiceGrpc.ClusterServiceImplBase {
        @Override
        public void listNodes(io.forgeflow.adapter.grpc.v1.ListNodesRequest request,
                              StreamObserver<io.forgeflow.adapter.grpc.v1.ListNodesResponse> observer) {
            ran.incrementAndGet();
            observer.onNext(io.forgeflow.adapter.grpc.v1.ListNodesResponse.getDefaultInstance());
            observer.onCompleted();
        }
    }

    static final Map<String, String> DIRECTORY = Map.of(BETAS, "beta", ACMES, "acme");

    @BeforeEach
    void start() throws Exception {
        TenantDirectory directory = (kind, id) -> kind == TenantDirectory.Kind.JOB
                ? Optional.ofNullable(DIRECTORY.get(id)) : Optional.empty();
        TenantMethods tenants = new TenantMethods(directory, t -> false);
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(new Jobs(), tenants, CALLERS))
                .addService(ServerInterceptors.intercept(new Queues(), tenants, CALLERS))
                .addService(ServerInterceptors.intercept(new Cluster(), tenants, CALLERS)).build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    Channel as(String boundTo, String tenantMetadata) {
        Metadata md = new Metadata();
        if (boundTo != null) {
            md.put(AS, boundTo);
        }
        if (tenantMetadata != null) {
            md.put(Tenancy.KEY, tenantMetadata);
        }
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(md));
    }

    JobServiceGrpc.JobServiceBlockingStub jobs(String boundTo, String tenantMetadata) {
        return JobServiceGrpc.newBlockingStub(as(boundTo, tenantMetadata)).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    static ErrorInfo info(StatusRuntimeException e) throws InvalidProtocolBufferException {
        return StatusProto.fromThrowable(e).getDetailsList().get(0).unpack(ErrorInfo.class);
    }

    @Test
    void anotherTenantsIdIsTheNotFoundOfAnUnknownIdAndTheMethodDoesNotRun() throws Exception {
        String unknown = UUID.randomUUID().toString();
        StatusRuntimeException theirs = assertThrows(StatusRuntimeException.class,
                () -> jobs("acme", null).getJob(GetJobRequest.newBuilder().setId(BETAS).build()));
        assertEquals(0, ran.get(), "the method did not run");
        StatusRuntimeException none = assertThrows(StatusRuntimeException.class,
                () -> jobs("acme", null).getJob(GetJobRequest.newBuilder().setId(unknown).build()));
        assertEquals(1, ran.get());

        assertEquals(Status.Code.NOT_FOUND, theirs.getStatus().getCode());
        assertEquals(none.getStatus().getCode(), theirs.getStatus().getCode());
        assertEquals(none.getStatus().getDescription().replace(unknown, "ID"),
                theirs.getStatus().getDescription().replace(BETAS, "ID"));
        assertEquals(info(none), info(theirs));
        // its own job, and any job for a cluster-wide caller
        assertEquals("acme", jobs("acme", null).getJob(GetJobRequest.newBuilder().setId(ACMES).build()).getTenant());
        assertEquals("beta", jobs(null, null).getJob(GetJobRequest.newBuilder().setId(BETAS).build()).getTenant());
    }

    @Test
    void theMetadataPicksAClusterWideCallersTenantAndHoldsItThere() throws Exception {
        assertEquals("beta", jobs(null, "beta").getJob(GetJobRequest.newBuilder().setId(BETAS).build()).getTenant());
        StatusRuntimeException held = assertThrows(StatusRuntimeException.class,
                () -> jobs(null, "beta").getJob(GetJobRequest.newBuilder().setId(ACMES).build()));
        assertEquals(Status.Code.NOT_FOUND, held.getStatus().getCode());
        assertEquals("beta", jobs(null, "beta").submitJob(SubmitJobRequest.getDefaultInstance()).getJob().getTenant());
        assertEquals("default", jobs(null, null).submitJob(SubmitJobRequest.getDefaultInstance()).getJob().getTenant());
        assertEquals("acme", jobs("acme", null).submitJob(SubmitJobRequest.getDefaultInstance()).getJob().getTenant());
        assertEquals("acme", jobs("acme", "acme").submitJob(SubmitJobRequest.newBuilder().setTenant("acme").build())
                .getJob().getTenant());

        StatusRuntimeException bad = assertThrows(StatusRuntimeException.class,
                () -> jobs(null, "Not A Tenant").submitJob(SubmitJobRequest.getDefaultInstance()));
        assertEquals(Status.Code.INVALID_ARGUMENT, bad.getStatus().getCode());
        assertTrue(bad.getStatus().getDescription().contains("is not a tenant name"), bad.getMessage());
        StatusRuntimeException differs = assertThrows(StatusRuntimeException.class,
                () -> jobs(null, "acme").submitJob(SubmitJobRequest.newBuilder().setTenant("beta").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, differs.getStatus().getCode());
    }

    @Test
    void aBoundCallerNamingAnotherTenantIsPermissionDeniedTenantForbidden() throws Exception {
        StatusRuntimeException inMetadata = assertThrows(StatusRuntimeException.class,
                () -> jobs("acme", "beta").getJob(GetJobRequest.newBuilder().setId(ACMES).build()));
        StatusRuntimeException inRequest = assertThrows(StatusRuntimeException.class,
                () -> jobs("acme", null).submitJob(SubmitJobRequest.newBuilder().setTenant("beta").build()));
        for (StatusRuntimeException e : List.of(inMetadata, inRequest)) {
            assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
            assertEquals("tenant_forbidden", info(e).getReason());
            assertEquals("tenant", info(e).getMetadataOrThrow("field"));
            assertTrue(e.getStatus().getDescription().startsWith("this token acts in tenant 'acme' only and may "
                    + "not name tenant 'beta'"), e.getMessage());
        }
        assertEquals(1, ran.get(), "only the submission ran, and refused");
    }

    @Test
    void clusterWideMethodsRefuseABoundCallerBeforeTheyRun() throws Exception {
        StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
                () -> ClusterServiceGrpc.newBlockingStub(as("acme", null))
                        .listNodes(io.forgeflow.adapter.grpc.v1.ListNodesRequest.getDefaultInstance()));
        assertEquals(Status.Code.PERMISSION_DENIED, refused.getStatus().getCode());
        assertEquals("tenant_forbidden", info(refused).getReason());
        assertTrue(refused.getStatus().getDescription().contains("forgeflow.v1.ClusterService/ListNodes is "
                + "cluster-wide"), refused.getMessage());
        assertEquals(0, ran.get());
        ClusterServiceGrpc.newBlockingStub(as(null, "acme"))
                .listNodes(io.forgeflow.adapter.grpc.v1.ListNodesRequest.getDefaultInstance());
        assertEquals(1, ran.get());
    }

    @Test
    void queuesAreTheCallersTenantsAndABoundCallerMayNameNoOther() throws Exception {
        assertEquals("acme", QueueServiceGrpc.newBlockingStub(as("acme", null))
                .listQueues(ListQueuesRequest.getDefaultInstance()).getQueues(0).getTenant());
        assertEquals("beta", QueueServiceGrpc.newBlockingStub(as(null, "beta"))
                .listQueues(ListQueuesRequest.getDefaultInstance()).getQueues(0).getTenant());
        assertEquals("null", QueueServiceGrpc.newBlockingStub(as(null, null))
                .listQueues(ListQueuesRequest.getDefaultInstance()).getQueues(0).getTenant(), "every tenant's");
        StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
                () -> QueueServiceGrpc.newBlockingStub(as("acme", null))
                        .listQueues(ListQueuesRequest.newBuilder().setTenant("beta").build()));
        assertEquals(Status.Code.PERMISSION_DENIED, refused.getStatus().getCode());
        assertEquals("tenant_forbidden", info(refused).getReason());
    }

    /** Every method is in the table or cluster-wide, and every route that names an object reads its id field. */
    @Test
    void everyMethodIsRoutedOrClusterWideAndRoutesReadTheirIds() {
        Set<String> clusterWide = new TreeSet<>();
        int named = 0;
        for (io.grpc.ServiceDescriptor service : List.of(JobServiceGrpc.getServiceDescriptor(),
                RunServiceGrpc.getServiceDescriptor(), QueueServiceGrpc.getServiceDescriptor(),
                ScheduleServiceGrpc.getServiceDescriptor(), ClusterServiceGrpc.getServiceDescriptor(),
                TenantServiceGrpc.getServiceDescriptor())) {
            for (MethodDescriptor<?, ?> method : service.getMethods()) {
                TenantMethods.Route route = TenantMethods.ROUTES.get(method.getFullMethodName());
                if (route == null) {
                    clusterWide.add(method.getFullMethodName());
                    continue;
                }
                Message prototype = (Message) ((MethodDescriptor.PrototypeMarshaller<?>) method
                        .getRequestMarshaller()).getMessagePrototype();
                Descriptors.Descriptor type = prototype.getDescriptorForType();
                Descriptors.FieldDescriptor id = type.findFieldByName(type.getName().equals("GetBackfillRequest")
                        || type.getName().equals("PreviewRequest") ? "job_id" : "id");
                if (route.kind() == null) {
                    assertTrue(type.findFieldByName("id") == null, method.getFullMethodName() + " names an object");
                    continue;
                }
                Message.Builder request = prototype.toBuilder().setField(id, "the-id");
                Descriptors.FieldDescriptor backfill = type.findFieldByName("backfill_id");
                if (backfill != null) {
                    request.setField(backfill, UUID.randomUUID().toString());
                }
                assertEquals("the-id", route.id().apply(request.build()), method.getFullMethodName());
                named++;
            }
        }
        assertEquals(13, named);
        assertEquals(new TreeSet<>(Set.of("forgeflow.v1.RunService/WatchRuns", "forgeflow.v1.ClusterService/GetStats",
                "forgeflow.v1.TenantService/ListTenants", "forgeflow.v1.TenantService/GetTenant",
                "forgeflow.v1.TenantService/ConfigureTenant",
                "forgeflow.v1.ClusterService/ListNodes")), clusterWide);
        Set<String> all = new HashSet<>(TenantMethods.ROUTES.keySet());
        all.addAll(clusterWide);
        assertEquals(Authentication.SCOPES.keySet(), all, "the tenant table and the scope table name the same methods");
    }
}
