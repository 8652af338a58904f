package io.forgeflow.server;

import io.dropwizard.core.setup.Environment;
import io.forgeflow.adapter.grpc.Caller;
import io.forgeflow.adapter.grpc.GrpcApi;
import io.forgeflow.adapter.grpc.UseCases;
import io.forgeflow.adapter.rest.ApiPrincipal;
import io.forgeflow.adapter.rest.ApiTokens;
import io.forgeflow.adapter.rest.Scope;
import io.forgeflow.application.event.RunEventFeed;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.stream.Collectors;

/**
 * The gRPC API (issue 41) on its own port, on api nodes with {@code FORGEFLOW_GRPC_LISTEN_ADDR} set: REST's tokens,
 * REST's event feed, calls counted in {@code forgeflow_grpc_calls_total{method,code}}. Started after the HTTP server,
 * stopped when the node stops (streams end first, calls in progress get a few seconds).
 */
final class GrpcWiring {
    static final String VARIABLE = "FORGEFLOW_GRPC_LISTEN_ADDR";
    private static final Logger LOG = LoggerFactory.getLogger(GrpcWiring.class);
    private static final Duration GRACE = Duration.ofSeconds(5);

    private GrpcWiring() {
    }

    /** The address to listen on, or null for none: {@code port} and {@code :port} mean loopback. */
    static InetSocketAddress address(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.trim();
        int colon = v.lastIndexOf(':');
        String host = colon < 0 ? "" : v.substring(0, colon);
        String port = colon < 0 ? v : v.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException(VARIABLE + " must be port, :port (loopback) or host:port such as "
                    + "127.0.0.1:9090 or 0.0.0.0:9090, was '" + value + "'");
        }
        return new InetSocketAddress(host.isEmpty() ? "127.0.0.1" : host, Integer.parseInt(port));
    }

    /** REST's principal of a token, as the gRPC adapter's caller. */
    static Caller.Tokens tokens(ApiTokens tokens) {
        if (tokens.isEmpty()) {
            return null;
        }
        return token -> tokens.authenticate(token).map(GrpcWiring::caller).orElse(null);
    }

    private static Caller caller(ApiPrincipal p) {
        return new Caller(p.name(), p.scopes().stream().map(Scope::wireName).collect(Collectors.toSet()),
                p.submitExecutors(), p.tenant());
    }

    /**
     * Serves gRPC when configured; null otherwise.
     *
     * @throws IllegalStateException the address is not loopback, no token is configured and FORGEFLOW_INSECURE is
     *                               not true (REST's rule)
     */
    static GrpcApi wire(Environment environment, ForgeFlowSettings settings, NodeSecurity security, UseCases useCases,
                        RunEventFeed feed, PrometheusRegistry registry) {
        InetSocketAddress address = address(settings.grpcListenAddr);
        if (address == null) {
            return null;
        }
        if (!loopback(address) && security.tokens().isEmpty() && !settings.insecure) {
            throw new IllegalStateException(VARIABLE + " is " + settings.grpcListenAddr + ", which is not a loopback "
                    + "address, and no API tokens are configured, so anyone who reaches that port could run shell "
                    + "commands as this node's user. Configure tokens (" + ApiTokens.VARIABLE + "=admin:<secret>), "
                    + "listen on loopback (" + VARIABLE + "=127.0.0.1:9090), or set FORGEFLOW_INSECURE=true");
        }
        Counter calls = Counter.builder().name("forgeflow_grpc_calls_total")
                .help("gRPC calls answered, by method and status code").labelNames("method", "code").register(registry);
        Histogram seconds = Histogram.builder().name("forgeflow_grpc_call_duration_seconds")
                .help("How long gRPC calls took, by method (streams: their whole life)").labelNames("method")
                .register(registry);
        GrpcApi.Builder builder = GrpcApi.builder(useCases).address(address).tokens(tokens(security.tokens()))
                .databaseAway(io.forgeflow.adapter.postgres.DatabaseOutages::isOutage)
                .metrics((method, code, nanos) -> {
                    calls.labelValues(method, code).inc();
                    seconds.labelValues(method).observe(nanos / 1e9);
                });
        if (feed != null) {
            builder.events(feed, settings.eventStreams);
        }
        if (!settings.grpcTlsCert.isBlank() || !settings.grpcTlsKey.isBlank()) {
            if (settings.grpcTlsCert.isBlank() || settings.grpcTlsKey.isBlank()) {
                throw new IllegalStateException("gRPC over TLS needs both FORGEFLOW_GRPC_TLS_CERT and "
                        + "FORGEFLOW_GRPC_TLS_KEY (PEM files)");
            }
            builder.tls(new File(settings.grpcTlsCert), new File(settings.grpcTlsKey));
        }
        GrpcApi api = builder.build();
        environment.lifecycle().manage(NodeWiring.managed(() -> {
            api.start();
            LOG.info("gRPC API (forgeflow.v1) on {}:{}{}", address.getHostString(), api.port(),
                    settings.grpcTlsCert.isBlank() ? "" : " over TLS");
        }, () -> api.stop(GRACE)));
        return api;
    }

    /** What /api/nodes shows: {@code host:port} once serving, null without gRPC (or before it listens). */
    static String advertised(GrpcApi api, ForgeFlowSettings settings) {
        if (api == null) {
            return null;
        }
        int port;
        try {
            port = api.port();
        } catch (IllegalStateException notStarted) {
            return null;
        }
        InetSocketAddress address = address(settings.grpcListenAddr);
        String host = address.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    private static boolean loopback(InetSocketAddress address) {
        try {
            return InetAddress.getByName(address.getHostString()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
