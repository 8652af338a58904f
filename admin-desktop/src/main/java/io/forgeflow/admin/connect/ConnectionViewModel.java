package io.forgeflow.admin.connect;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.ClusterConnector;
import io.forgeflow.admin.cluster.JobQuery;
import io.forgeflow.admin.cluster.Tenancy;
import io.forgeflow.admin.runs.TraceViewer;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Secrets;
import io.forgeflow.admin.support.SettingsStore;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;

/**
 * Connects to a server: checks the URL, opens a client, and proves it with {@code GET /api/stats} (which needs the
 * token when the server requires one). Success remembers URL and token; failure says whether the server is
 * unreachable, refused the token, or is not a ForgeFlow API, and offers Retry. The token is never logged.
 *
 * <p>Tenants: an optional tenant (remembered) makes every call act in it ({@code X-ForgeFlow-Tenant}); empty acts
 * across tenants. A tenant-bound token is refused the cluster's nodes (403 {@code tenant_forbidden}): it is proven with
 * one page of its jobs instead, and {@link #boundTenantProperty()} names its tenant.
 */
public final class ConnectionViewModel {
    public static final String DEFAULT_URL = "http://127.0.0.1:8080";
    static final String URL_KEY = "serverUrl";
    static final String TOKEN_KEY = "apiToken";
    static final String TRACE_TEMPLATE_KEY = "traceUrlTemplate";
    static final String TENANT_KEY = "tenant";
    private static final System.Logger LOG = System.getLogger(ConnectionViewModel.class.getName());

    private final ClusterConnector connector;
    private final SettingsStore settings;
    private final Async async;

    private final StringProperty serverUrl = new SimpleStringProperty(this, "serverUrl");
    private final StringProperty token = new SimpleStringProperty(this, "token");
    private final StringProperty traceUrlTemplate = new SimpleStringProperty(this, "traceUrlTemplate");
    private final StringProperty tenant = new SimpleStringProperty(this, "tenant");
    private final ReadOnlyStringWrapper boundTenant = new ReadOnlyStringWrapper(this, "boundTenant", "");
    private final BooleanProperty rememberToken = new SimpleBooleanProperty(this, "rememberToken", true);
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ReadOnlyStringWrapper connectLabel = new ReadOnlyStringWrapper(this, "connectLabel", "Connect");
    private final ReadOnlyObjectWrapper<ClusterClient> connected = new ReadOnlyObjectWrapper<>(this, "connected");
    private final BooleanBinding canConnect;

    public ConnectionViewModel(ClusterConnector connector, SettingsStore settings, Async async) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.async = Objects.requireNonNull(async, "async");
        serverUrl.set(settings.get(URL_KEY, DEFAULT_URL));
        token.set(settings.get(TOKEN_KEY, ""));
        traceUrlTemplate.set(settings.get(TRACE_TEMPLATE_KEY, ""));
        tenant.set(settings.get(TENANT_KEY, ""));
        canConnect = Bindings.createBooleanBinding(
                () -> !busy.get() && serverUrl.get() != null && !serverUrl.get().isBlank(), busy, serverUrl);
    }

    public StringProperty serverUrlProperty() {
        return serverUrl;
    }

    public StringProperty tokenProperty() {
        return token;
    }

    /**
     * Where run traces open when the node sends no {@code trace_url}: a URL with {@code {trace_id}}, such as
     * {@code http://jaeger:16686/trace/{trace_id}}; empty for none. Remembered on a successful connect.
     */
    public StringProperty traceUrlTemplateProperty() {
        return traceUrlTemplate;
    }

    /** The tenant to act in (remembered on a successful connect); empty: all tenants, or the token's own. */
    public StringProperty tenantProperty() {
        return tenant;
    }

    /** The tenant the connected token is bound to; empty for a cluster-wide token (or before connecting). */
    public ReadOnlyStringProperty boundTenantProperty() {
        return boundTenant.getReadOnlyProperty();
    }

    public BooleanProperty rememberTokenProperty() {
        return rememberToken;
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** What happened last: progress, success, or what failed and what to do. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** Whether {@link #messageProperty()} reports a failure. */
    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** "Connect", "Connecting…" or, after a failure, "Retry". */
    public ReadOnlyStringProperty connectLabelProperty() {
        return connectLabel.getReadOnlyProperty();
    }

    public BooleanBinding canConnectProperty() {
        return canConnect;
    }

    /** The client once connected; null before and after disconnecting. */
    public ReadOnlyObjectProperty<ClusterClient> connectedProperty() {
        return connected.getReadOnlyProperty();
    }

    public void connect() {
        if (busy.get()) {
            return;
        }
        String url = normalize(serverUrl.get());
        String problem = checkUrl(url);
        if (problem != null) {
            fail(problem);
            return;
        }
        String traceProblem = TraceViewer.checkTemplate(traceUrlTemplate.get());
        if (traceProblem != null) {
            fail(traceProblem);
            return;
        }
        String pick = tenant.get() == null ? "" : tenant.get().strip();
        if (!pick.isEmpty() && !Tenancy.isValidName(pick)) {
            fail("\"" + pick + "\" is not a tenant name: use 1 to 63 lower-case letters, digits, '_', '.' or '-', "
                    + "e.g. acme; leave Tenant empty for all tenants.");
            return;
        }
        serverUrl.set(url);
        String template = traceUrlTemplate.get() == null ? "" : traceUrlTemplate.get().strip();
        String secret = token.get() == null ? "" : token.get().strip();
        busy.set(true);
        failed.set(false);
        connectLabel.set("Connecting…");
        message.set("Connecting to " + url + "…");
        LOG.log(System.Logger.Level.INFO, "connecting to " + url + ", API token " + Secrets.describe(secret));
        async.run(() -> {
            ClusterClient opened = connector.open(url, secret.isEmpty() ? null : secret);
            ClusterClient client = pick.isEmpty() ? opened : opened.inTenant(pick);
            try {
                return prove(client, pick);
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
        }, proven -> {
            busy.set(false);
            settings.put(URL_KEY, url);
            settings.put(TOKEN_KEY, rememberToken.get() && !secret.isEmpty() ? secret : null);
            settings.put(TRACE_TEMPLATE_KEY, template.isEmpty() ? null : template);
            settings.put(TENANT_KEY, pick.isEmpty() ? null : pick);
            connectLabel.set("Connect");
            boundTenant.set(proven.bound() == null ? "" : proven.bound());
            message.set("Connected to " + url + (proven.bound() != null ? " as tenant " + proven.bound()
                    + " (this token is bound to it; cluster views need a cluster-wide token)"
                    : pick.isEmpty() ? "" : " in tenant " + pick));
            LOG.log(System.Logger.Level.INFO, "connected to " + url
                    + (proven.bound() != null ? ", token bound to tenant " + proven.bound() : ""));
            connected.set(proven.client());
        }, failure -> {
            busy.set(false);
            LOG.log(System.Logger.Level.INFO, "could not connect to " + url + ": " + failure.getMessage());
            fail(explain(url, secret, failure));
        });
    }

    /**
     * Proves the client works: {@code GET /api/stats}, then the nodes, which a tenant-bound token is refused (403
     * {@code tenant_forbidden}; it counts its own tenant's runs, so the stats alone do not tell it apart): such a
     * token is proven with one page of its jobs. A token bound to another tenant than the one picked fails.
     */
    private static Proven prove(ClusterClient client, String pick) {
        try {
            client.stats();
            client.nodes();
            return new Proven(client, null);
        } catch (ForgeFlowApiException e) {
            String bound = Tenancy.boundTenant(e);
            if (bound == null || !pick.isEmpty() && !pick.equals(bound)) {
                throw e;
            }
            client.jobs(JobQuery.ALL, null, 1);
            return new Proven(client, bound);
        }
    }

    private record Proven(ClusterClient client, String bound) {
    }

    /** Closes the client and returns to the connect screen. */
    public void disconnect() {
        ClusterClient client = connected.get();
        connected.set(null);
        boundTenant.set("");
        if (client != null) {
            client.close();
        }
        failed.set(false);
        connectLabel.set("Connect");
        message.set("Disconnected.");
    }

    private void fail(String text) {
        failed.set(true);
        connectLabel.set("Retry");
        message.set(text);
    }

    static String explain(String url, String token, Exception failure) {
        if (failure instanceof ForgeFlowUnavailableException u) {
            return "Cannot reach the server at " + url + " (" + Problems.cause(u) + "). Check that a ForgeFlow node "
                    + "runs there and that the URL and port are right, then Retry.";
        }
        if (failure instanceof ForgeFlowApiException api) {
            if (Tenancy.isForbidden(api)) {
                String bound = Tenancy.boundTenant(api);
                return "The server refused the tenant: " + api.error() + (bound == null ? ""
                        : ". This token is bound to tenant " + bound + ": enter " + bound
                                + " or leave Tenant empty, then Retry.");
            }
            if (api.isAuthenticationFailure()) {
                return token.isEmpty()
                        ? "The server requires an API token (HTTP " + api.status() + "). Enter the token and Retry."
                        : "The server refused the API token (HTTP " + api.status() + ": " + api.error()
                                + "). Check the token and Retry.";
            }
            if (api.isNotFound()) {
                return "No ForgeFlow API at " + url + " (HTTP 404 for /api/stats). Check the URL: it is the node's "
                        + "address, without /api.";
            }
            return "The server at " + url + " answered HTTP " + api.status() + ": " + api.error() + ". Retry when "
                    + "it is healthy.";
        }
        return "Cannot connect to " + url + ": " + failure.getMessage();
    }

    private static String normalize(String url) {
        String u = url == null ? "" : url.strip();
        if (!u.isEmpty() && !u.contains("://")) {
            u = "http://" + u;
        }
        while (u.endsWith("/")) {
            u = u.substring(0, u.length() - 1);
        }
        return u;
    }

    private static String checkUrl(String url) {
        if (url.isEmpty()) {
            return "Enter the server URL, e.g. " + DEFAULT_URL + ".";
        }
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme();
            if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
                return "The URL must start with http:// or https://, e.g. " + DEFAULT_URL + ".";
            }
            if (uri.getHost() == null) {
                return "The URL has no host: write it like " + DEFAULT_URL + ".";
            }
            return null;
        } catch (URISyntaxException e) {
            return "That is not a URL (" + e.getReason() + "): write it like " + DEFAULT_URL + ".";
        }
    }
}
