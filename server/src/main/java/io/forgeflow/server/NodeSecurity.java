package io.forgeflow.server;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.forgeflow.adapter.rest.ApiTokens;
import io.forgeflow.adapter.rest.BrowserDefence;
import io.forgeflow.adapter.rest.RestModule;
import io.forgeflow.domain.execution.ExecutorSettings;
import io.forgeflow.domain.port.ConfigurableRunExecutor;
import io.forgeflow.domain.port.RunExecutor;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;

/**
 * Who can reach this node and what they may do, decided once at start (SECURITY.md):
 *
 * <ul>
 *   <li>the API's bearer tokens ({@code FORGEFLOW_API_TOKENS}); none: an open API;</li>
 *   <li>the safe default: a node without tokens listens on loopback only. An API address that is not loopback
 *       ({@code FORGEFLOW_LISTEN_ADDR=0.0.0.0:8080}, a YAML {@code bindHost}, or none, which means every interface)
 *       without tokens stops the node with a message that says how to configure them, unless the operator opts out
 *       with {@code FORGEFLOW_INSECURE=true} (then a warning at start and on {@code /readyz});</li>
 *   <li>the browser defence on the API and admin ports ({@link BrowserDefence}): no state-changing request from a
 *       foreign web page origin ({@code FORGEFLOW_ALLOWED_ORIGINS} lists more), and on a node without tokens and on
 *       the admin port no request naming a non-loopback Host ({@code FORGEFLOW_ALLOWED_HOSTS} lists more);</li>
 *   <li>the admin port, which has no authentication, listens on loopback: another address stops the node unless
 *       {@code FORGEFLOW_ADMIN_INSECURE=true};</li>
 *   <li>the http executor's SSRF guard: private, loopback and link-local targets are refused on every node, whatever
 *       address it listens on, unless {@code FORGEFLOW_HTTP_ALLOW_PRIVATE=true};</li>
 *   <li>the optional token of {@code /metrics} ({@code FORGEFLOW_METRICS_TOKEN}).</li>
 * </ul>
 *
 * Malformed tokens stop the node with a message naming the variable (never the token).
 */
final class NodeSecurity {
    private static final Logger LOG = LoggerFactory.getLogger(NodeSecurity.class);

    private final ApiTokens tokens;
    private final Filter metricsFilter;
    private final List<String> exposedAddresses;
    private final List<String> exposedAdminAddresses;
    private final boolean insecure;
    private final ExecutorSettings executorSettings;
    private final BrowserDefence apiDefence;
    private final BrowserDefence adminDefence;

    private NodeSecurity(ApiTokens tokens, Filter metricsFilter, List<String> exposedAddresses,
                         List<String> exposedAdminAddresses, boolean insecure, ExecutorSettings executorSettings,
                         BrowserDefence apiDefence, BrowserDefence adminDefence) {
        this.tokens = tokens;
        this.metricsFilter = metricsFilter;
        this.exposedAddresses = List.copyOf(exposedAddresses);
        this.exposedAdminAddresses = List.copyOf(exposedAdminAddresses);
        this.insecure = insecure;
        this.executorSettings = executorSettings;
        this.apiDefence = apiDefence;
        this.adminDefence = adminDefence;
    }

    /**
     * Decides, from a configuration the environment was applied to.
     *
     * @throws IllegalArgumentException a malformed FORGEFLOW_API_TOKENS, FORGEFLOW_METRICS_TOKEN,
     *                                  FORGEFLOW_ALLOWED_ORIGINS or FORGEFLOW_ALLOWED_HOSTS
     * @throws IllegalStateException    the API would listen on a non-loopback address without tokens, and
     *                                  FORGEFLOW_INSECURE is not true; or the admin port on a non-loopback address,
     *                                  and FORGEFLOW_ADMIN_INSECURE is not true
     */
    static NodeSecurity of(ForgeFlowConfiguration config) {
        ForgeFlowSettings s = config.forgeflow();
        ApiTokens tokens = ApiTokens.parse(s.apiTokens == null ? List.of() : s.apiTokens);
        String metricsToken = s.metricsToken == null ? "" : s.metricsToken.trim();
        Filter metricsFilter = metricsToken.isEmpty() ? null : RestModule.metricsToken(metricsToken);
        List<String> exposed = nonLoopback(applicationConnectors(config.getServerFactory()));
        List<String> exposedAdmin = nonLoopback(adminConnectors(config.getServerFactory()));
        if (!exposed.isEmpty() && tokens.isEmpty() && !s.insecure) {
            throw new IllegalStateException("refusing to start: the API would listen on " + String.join(", ", exposed)
                    + ", which is not a loopback address, and no API tokens are configured, so anyone who reaches "
                    + "that port could run shell commands as this node's user. Configure tokens, e.g. "
                    + ApiTokens.VARIABLE + "=admin:<secret> (a comma-separated list of scopes:token, the scopes read, "
                    + "operate, submit and admin joined with +, a token optionally written as sha256:<hex> of itself; "
                    + "forgeflow.apiTokens in YAML). Or listen on loopback only (FORGEFLOW_LISTEN_ADDR=127.0.0.1:8080), "
                    + "or, to run without authentication anyway, set FORGEFLOW_INSECURE=true. See SECURITY.md");
        }
        if (!exposedAdmin.isEmpty() && !s.adminInsecure) {
            throw new IllegalStateException("refusing to start: the admin port would listen on "
                    + String.join(", ", exposedAdmin) + ", which is not a loopback address, and it has no "
                    + "authentication (thread dumps, log levels, tasks). Keep it on loopback "
                    + "(FORGEFLOW_ADMIN_LISTEN_ADDR=127.0.0.1:8081, the default), or, to expose it anyway behind a "
                    + "firewall, set FORGEFLOW_ADMIN_INSECURE=true. See SECURITY.md");
        }
        boolean insecure = !exposed.isEmpty() && tokens.isEmpty();
        boolean privateAllowed = s.httpAllowPrivate != null && s.httpAllowPrivate;
        BrowserDefence apiDefence = BrowserDefence.of(s.allowedOrigins, s.allowedHosts, !tokens.isEmpty());
        // an admin port exposed on purpose serves its monitoring by any name, unless hosts are listed
        BrowserDefence adminDefence = BrowserDefence.of(s.allowedOrigins, s.allowedHosts, !exposedAdmin.isEmpty());
        return new NodeSecurity(tokens, metricsFilter, exposed, exposedAdmin, insecure,
                new ExecutorSettings(privateAllowed, ExecutorSettings.supervisorSilenceFor(
                        s.leaseDuration.toJavaDuration(), s.heartbeatInterval.toJavaDuration()), s.jobUser),
                apiDefence, adminDefence);
    }

    /** What the executors get (the SSRF guard's setting). */
    ExecutorSettings executorSettings() {
        return executorSettings;
    }

    /** Whether the node serves the API on a non-loopback address without authentication (FORGEFLOW_INSECURE=true). */
    /** The API's bearer tokens (REST's and gRPC's). */
    ApiTokens tokens() {
        return tokens;
    }

    boolean insecure() {
        return insecure;
    }

    /** Whether requests to the API must carry a token. */
    boolean authenticates() {
        return !tokens.isEmpty();
    }

    /** What {@code /readyz} shows under {@code warnings}. */
    List<String> readinessWarnings() {
        if (!insecure) {
            return List.of();
        }
        return List.of("the API listens on " + String.join(", ", exposedAddresses) + " without authentication "
                + "(FORGEFLOW_INSECURE=true): anyone who reaches it can run commands on this node; configure "
                + ApiTokens.VARIABLE);
    }

    /** Hands the node's settings to every executor that takes them; call before the first use. */
    void configure(Collection<? extends RunExecutor> executors) {
        for (RunExecutor executor : executors) {
            if (executor instanceof ConfigurableRunExecutor configurable) {
                configurable.configure(executorSettings);
            }
        }
    }

    /** Whether requests naming a non-loopback Host are refused on the API port (and on the admin port). */
    boolean restrictsHosts(boolean admin) {
        return (admin ? adminDefence : apiDefence).restrictsHosts();
    }

    /**
     * Registers, in this order, the browser defence of both ports (call before any other filter is added), the
     * bearer-token filter (with tokens) and the /metrics token filter (with a metrics token).
     */
    void register(Environment environment) {
        environment.servlets().addFilter("forgeflow-browser-defence", RestModule.browserDefence(apiDefence))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        environment.admin().addFilter("forgeflow-browser-defence", RestModule.browserDefence(adminDefence))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        jakarta.servlet.Filter gate = RestModule.authenticationGate(tokens);
        if (gate != null) { // tokenless bodies refused before anything reads them (issue 39)
            environment.servlets().addFilter("forgeflow-authentication-gate", gate)
                    .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        }
        RestModule.authentication(tokens).forEach(environment.jersey()::register);
        if (metricsFilter != null) {
            environment.servlets().addFilter("forgeflow-metrics-token", metricsFilter)
                    .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/metrics");
        }
    }

    /** Says at start what protects this node, and what does not. */
    void logAtStart() {
        String where = exposedAddresses.isEmpty() ? "loopback only" : String.join(", ", exposedAddresses);
        if (!tokens.isEmpty()) {
            LOG.info("API authentication on: {} bearer token(s); the API listens on {}", tokens.size(), where);
            tokens.warnings().forEach(LOG::warn);
        } else if (insecure) {
            LOG.warn("SECURITY WARNING: FORGEFLOW_INSECURE=true and no API tokens: the API listens on {} without "
                    + "authentication, and anyone who reaches it can run shell commands as user '{}'. Configure {}.",
                    where, System.getProperty("user.name"), ApiTokens.VARIABLE);
        } else {
            LOG.info("API authentication off (no {}): the API listens on loopback only", ApiTokens.VARIABLE);
        }
        LOG.info(executorSettings.privateNetworkTargetsAllowed()
                ? "http executor: loopback, private and link-local targets allowed (FORGEFLOW_HTTP_ALLOW_PRIVATE=true)"
                : "http executor: loopback, private and link-local targets refused (SSRF guard; "
                + "FORGEFLOW_HTTP_ALLOW_PRIVATE=true allows them)");
        if (metricsFilter != null) {
            LOG.info("/metrics requires FORGEFLOW_METRICS_TOKEN");
        }
        if (!exposedAdminAddresses.isEmpty()) {
            LOG.warn("SECURITY WARNING: FORGEFLOW_ADMIN_INSECURE=true: the admin port listens on {}: it serves thread "
                    + "dumps and tasks without any authentication; keep it behind a firewall",
                    String.join(", ", exposedAdminAddresses));
        }
        if (apiDefence.restrictsHosts()) {
            LOG.info("the API answers loopback host names only (no API tokens; {} lists more)",
                    BrowserDefence.HOSTS_VARIABLE);
        }
    }

    private static List<ConnectorFactory> applicationConnectors(ServerFactory server) {
        if (server instanceof DefaultServerFactory d) {
            return d.getApplicationConnectors();
        }
        if (server instanceof SimpleServerFactory simple) {
            return List.of(simple.getConnector());
        }
        return null;
    }

    private static List<ConnectorFactory> adminConnectors(ServerFactory server) {
        if (server instanceof DefaultServerFactory d) {
            return d.getAdminConnectors();
        }
        return List.of(); // a simple server serves admin on the application connector
    }

    /**
     * The addresses of connectors that are not loopback-only, as host:port. A connector without a bind host listens
     * on every interface; an unknown server or connector type counts as exposed.
     */
    static List<String> nonLoopback(List<ConnectorFactory> connectors) {
        List<String> exposed = new ArrayList<>();
        if (connectors == null) {
            exposed.add("(an unknown server type)");
            return exposed;
        }
        for (ConnectorFactory connector : connectors) {
            if (!(connector instanceof HttpConnectorFactory http)) {
                exposed.add("(a " + connector.getClass().getSimpleName() + " connector)");
            } else if (!isLoopback(http.getBindHost())) {
                String host = http.getBindHost() == null || http.getBindHost().isBlank() ? "0.0.0.0" : http.getBindHost();
                exposed.add((host.contains(":") ? "[" + host + "]" : host) + ":" + http.getPort());
            }
        }
        return exposed;
    }

    /** Whether every address {@code host} names is a loopback address; null or blank (every interface): no. */
    static boolean isLoopback(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        String h = host.strip();
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        try {
            InetAddress[] addresses = InetAddress.getAllByName(h);
            for (InetAddress address : addresses) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return addresses.length > 0;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
