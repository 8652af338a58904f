package io.forgeflow.adapter.grpc;

import io.forgeflow.application.event.RunEventFeed;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The gRPC API (package {@code forgeflow.v1}, the .proto files in this jar under {@code forgeflow/v1/}) on a port of
 * its own: the application's use cases as REST calls them, REST's tokens and scopes, {@code grpc.health.v1.Health}
 * and server reflection. Built by the server (composition root):
 *
 * <pre>{@code
 * GrpcApi api = GrpcApi.builder(useCases).address(new InetSocketAddress("127.0.0.1", 9090))
 *         .tokens(token -> ...).events(feed, 1000).databaseAway(DatabaseOutages::isOutage).build();
 * api.start();  ...  api.stop(Duration.ofSeconds(5));
 * }</pre>
 */
public final class GrpcApi {
    /** The largest request the transport reads: REST's largest body, a batch's (16 MiB); others: 1 MiB (MessageLimit). */
    public static final int MAX_MESSAGE_BYTES = 16 << 20;

    /** Where calls are counted: by full method name and status code name ({@code OK}, {@code NOT_FOUND} ...). */
    @FunctionalInterface
    public interface CallRecorder {
        void record(String method, String code, long nanos);
    }

    private final Server server;
    private final HealthStatusManager health;
    private final RunWatches watches;

    private GrpcApi(Server server, HealthStatusManager health, RunWatches watches) {
        this.server = server;
        this.health = health;
        this.watches = watches;
    }

    public static Builder builder(UseCases useCases) {
        return new Builder(useCases);
    }

    /** Binds the port and serves; health says SERVING. */
    public GrpcApi start() {
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for gRPC on " + server.getListenSockets() + ": "
                    + e.getMessage(), e);
        }
        health.setStatus("", ServingStatus.SERVING);
        return this;
    }

    /** The port it listens on (the one asked for, or the one chosen for port 0). */
    public int port() {
        return server.getPort();
    }

    /** Open WatchRuns streams. */
    public int openStreams() {
        return watches == null ? 0 : watches.openStreams();
    }

    /** Health says NOT_SERVING, streams end, calls in progress get {@code grace} to finish. */
    public void stop(java.time.Duration grace) {
        health.enterTerminalState();
        if (watches != null) {
            watches.close();
        }
        server.shutdown();
        try {
            if (!server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                server.shutdownNow();
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    public static final class Builder {
        private final UseCases useCases;
        private InetSocketAddress address = new InetSocketAddress("127.0.0.1", 0);
        private Caller.Tokens tokens;
        private RunEventFeed feed;
        private int maxStreams = 1_000;
        private int maxQueued = RunWatches.MAX_QUEUED;
        private Predicate<Throwable> databaseAway = t -> false;
        private CallRecorder recorder = (m, c, n) -> { };
        private File certificate;
        private File privateKey;

        private Builder(UseCases useCases) {
            this.useCases = Objects.requireNonNull(useCases, "useCases");
        }

        public Builder address(InetSocketAddress newAddress) {
            this.address = newAddress;
            return this;
        }

        /** REST's tokens; null (the default) leaves every method open, as REST without tokens. */
        public Builder tokens(Caller.Tokens newTokens) {
            this.tokens = newTokens;
            return this;
        }

        /** WatchRuns over REST's event feed, with REST's limit of streams. */
        public Builder events(RunEventFeed newFeed, int newMaxStreams) {
            this.feed = newFeed;
            this.maxStreams = newMaxStreams;
            return this;
        }

        /** Events a stream may have waiting before its client counts as too slow (default 1000, as REST's). */
        public Builder maxQueuedEvents(int n) {
            this.maxQueued = n;
            return this;
        }

        /** Tells failures because the database is away: UNAVAILABLE, not INTERNAL. */
        public Builder databaseAway(Predicate<Throwable> newDatabaseAway) {
            this.databaseAway = newDatabaseAway;
            return this;
        }

        public Builder metrics(CallRecorder newRecorder) {
            this.recorder = newRecorder;
            return this;
        }

        /** TLS with this PEM certificate chain and key (null: plaintext, which the server allows on loopback only). */
        public Builder tls(File newCertificate, File newPrivateKey) {
            this.certificate = newCertificate;
            this.privateKey = newPrivateKey;
            return this;
        }

        public GrpcApi build() {
            Unary unary = new Unary(databaseAway);
            RunWatches watches = feed == null ? null : new RunWatches(feed, maxStreams, maxQueued,
                    jobId -> useCases.queryJobs().get(jobId).spec().queue());
            HealthStatusManager health = new HealthStatusManager();
            Authentication auth = new Authentication(tokens);
            CallMetrics metrics = new CallMetrics(recorder);
            MessageLimit limit = new MessageLimit();
            TenantMethods tenants = new TenantMethods(useCases.tenants(), databaseAway);
            NettyServerBuilder builder = NettyServerBuilder.forAddress(address)
                    .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                    .maxInboundMetadataSize(16 << 10)
                    // idle clients are pinged, dead connections noticed (as REST's keep-alive comments)
                    .keepAliveTime(30, TimeUnit.SECONDS)
                    .permitKeepAliveTime(10, TimeUnit.SECONDS);
            if (certificate != null) {
                builder.useTransportSecurity(certificate, privateKey);
            }
            // interceptors run last-added first: metrics see every call, authentication's refusals too; the size
            // limit applies to authenticated calls only; the tenant check to every call that passed both
            builder.addService(ServerInterceptors.intercept(new JobGrpcService(useCases, unary), tenants, limit, auth,
                            metrics))
                    .addService(ServerInterceptors.intercept(new RunGrpcService(useCases, unary, watches, databaseAway),
                            tenants, limit, auth, metrics))
                    .addService(ServerInterceptors.intercept(new OtherServices.Queues(useCases, unary), tenants, limit,
                            auth, metrics))
                    .addService(ServerInterceptors.intercept(new OtherServices.Tenants(useCases, unary), tenants,
                            limit, auth, metrics))
                    .addService(ServerInterceptors.intercept(new OtherServices.Schedules(useCases, unary), tenants,
                            limit, auth, metrics))
                    .addService(ServerInterceptors.intercept(new OtherServices.Cluster(useCases, unary), tenants, limit,
                            auth, metrics))
                    .addService(ServerInterceptors.intercept(health.getHealthService(), metrics))
                    .addService(ServerInterceptors.intercept(ProtoReflectionServiceV1.newInstance(), metrics));
            return new GrpcApi(builder.build(), health, watches);
        }
    }
}
