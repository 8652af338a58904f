package io.forgeflow.server;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.util.Duration;
import io.forgeflow.server.secrets.SecretFiles;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Applies {@code FORGEFLOW_*} environment variables over the YAML configuration (the environment wins). A value
 * that does not parse stops the node with a message naming the variable and the expected form.
 */
public final class EnvironmentOverrides {
    static final Set<String> ROLES = Set.of("api", "scheduler", "worker");

    /**
     * The variable of every field of {@link ForgeFlowSettings} (README's configuration table lists them all, with the
     * variables of settings outside that section: {@link #OTHER_VARIABLES}).
     */
    static final Map<String, String> SETTINGS_VARIABLES = Map.ofEntries(
            Map.entry("databaseUrl", "FORGEFLOW_DATABASE_URL"), Map.entry("databaseSchema", "FORGEFLOW_DATABASE_SCHEMA"),
            Map.entry("databaseSessionUrl", "FORGEFLOW_DATABASE_SESSION_URL"),
            Map.entry("databasePooling", "FORGEFLOW_DATABASE_POOLING"),
            Map.entry("databasePoolSize", "FORGEFLOW_DATABASE_POOL_SIZE"),
            Map.entry("dataDirectory", "FORGEFLOW_DATA_DIR"), Map.entry("roles", "FORGEFLOW_ROLES"),
            Map.entry("workerId", "FORGEFLOW_WORKER_ID"), Map.entry("concurrency", "FORGEFLOW_CONCURRENCY"),
            Map.entry("queues", "FORGEFLOW_QUEUES"), Map.entry("pollInterval", "FORGEFLOW_POLL_INTERVAL"),
            Map.entry("leaseDuration", "FORGEFLOW_LEASE_DURATION"),
            Map.entry("heartbeatInterval", "FORGEFLOW_HEARTBEAT_INTERVAL"),
            Map.entry("schedulerTick", "FORGEFLOW_SCHEDULER_TICK"), Map.entry("retryBase", "FORGEFLOW_RETRY_BASE"),
            Map.entry("drainGrace", "FORGEFLOW_DRAIN_GRACE"), Map.entry("misfireThreshold", "FORGEFLOW_MISFIRE_THRESHOLD"),
            Map.entry("executors", "FORGEFLOW_EXECUTORS"), Map.entry("maxOutputBytes", "FORGEFLOW_MAX_OUTPUT_BYTES"),
            Map.entry("migrateOnStart", "FORGEFLOW_MIGRATE_ON_START"), Map.entry("apiTokens", "FORGEFLOW_API_TOKENS"),
            Map.entry("metricsToken", "FORGEFLOW_METRICS_TOKEN"), Map.entry("insecure", "FORGEFLOW_INSECURE"),
            Map.entry("allowedOrigins", "FORGEFLOW_ALLOWED_ORIGINS"), Map.entry("allowedHosts", "FORGEFLOW_ALLOWED_HOSTS"),
            Map.entry("adminInsecure", "FORGEFLOW_ADMIN_INSECURE"),
            Map.entry("httpAllowPrivate", "FORGEFLOW_HTTP_ALLOW_PRIVATE"), Map.entry("retention", "FORGEFLOW_RETENTION"),
            Map.entry("retentionInterval", "FORGEFLOW_RETENTION_INTERVAL"), Map.entry("logFormat", "FORGEFLOW_LOG_FORMAT"),
            Map.entry("historyAfter", "FORGEFLOW_HISTORY_AFTER"),
            Map.entry("eventBuffer", "FORGEFLOW_EVENT_BUFFER"), Map.entry("eventStreams", "FORGEFLOW_EVENT_STREAMS"),
            Map.entry("listByteBudget", "FORGEFLOW_LIST_BYTE_BUDGET"),
            Map.entry("maxConnectionsPerAddress", "FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS"),
            Map.entry("minRequestDataRate", "FORGEFLOW_MIN_REQUEST_DATA_RATE"),
            Map.entry("requestBodyGrace", "FORGEFLOW_REQUEST_BODY_GRACE"),
            Map.entry("eventKeepAlive", "FORGEFLOW_EVENT_KEEPALIVE"),
            Map.entry("statementTimeout", "FORGEFLOW_STATEMENT_TIMEOUT"), Map.entry("lockTimeout", "FORGEFLOW_LOCK_TIMEOUT"),
            Map.entry("idleInTransactionTimeout", "FORGEFLOW_IDLE_IN_TRANSACTION_TIMEOUT"),
            Map.entry("retentionStatementTimeout", "FORGEFLOW_RETENTION_STATEMENT_TIMEOUT"),
            Map.entry("leaderSessionTimeout", "FORGEFLOW_LEADER_SESSION_TIMEOUT"),
            Map.entry("jobUser", "FORGEFLOW_JOB_USER"), Map.entry("grpcListenAddr", "FORGEFLOW_GRPC_LISTEN_ADDR"),
            Map.entry("grpcTlsCert", "FORGEFLOW_GRPC_TLS_CERT"), Map.entry("grpcTlsKey", "FORGEFLOW_GRPC_TLS_KEY"),
            Map.entry("notifyUrl", "FORGEFLOW_NOTIFY_URL"), Map.entry("notifyOn", "FORGEFLOW_NOTIFY_ON"),
            Map.entry("notifySecret", "FORGEFLOW_NOTIFY_SECRET"), Map.entry("portsFile", "FORGEFLOW_PORTS_FILE"));

    /** Variables of settings outside {@code forgeflow:}: the listen addresses. */
    static final List<String> OTHER_VARIABLES = List.of("FORGEFLOW_LISTEN_ADDR", "FORGEFLOW_ADMIN_LISTEN_ADDR");

    private EnvironmentOverrides() {
    }

    public static void apply(ForgeFlowConfiguration config, Map<String, String> environment) {
        Map<String, String> env = SecretFiles.resolve(environment); // FORGEFLOW_DATABASE_URL_FILE and the like
        ForgeFlowSettings s = config.forgeflow();
        // an empty YAML value (databaseUrl: ${FORGEFLOW_DATABASE_URL:-}) arrives as null
        s.databaseUrl = s.databaseUrl == null ? "" : s.databaseUrl.trim();
        s.databaseSessionUrl = s.databaseSessionUrl == null ? "" : s.databaseSessionUrl.trim();
        s.workerId = s.workerId == null ? "" : s.workerId.trim();
        String v;
        if ((v = env.get("FORGEFLOW_DATABASE_URL")) != null) {
            s.databaseUrl = v.trim();
        }
        if ((v = env.get("FORGEFLOW_DATABASE_SESSION_URL")) != null) {
            s.databaseSessionUrl = v.trim();
        }
        if ((v = env.get("FORGEFLOW_DATABASE_POOLING")) != null) {
            s.databasePooling = v.trim();
        }
        s.databasePooling = s.databasePooling == null ? "" : s.databasePooling;
        if (!List.of("", "direct", "transaction").contains(s.databasePooling)) {
            throw new IllegalArgumentException("FORGEFLOW_DATABASE_POOLING must be direct or transaction, not '"
                    + s.databasePooling + "'");
        }
        if (s.databasePooling.equals("direct") && !s.databaseSessionUrl.isBlank()) {
            throw new IllegalArgumentException("FORGEFLOW_DATABASE_POOLING is direct but FORGEFLOW_DATABASE_SESSION_URL "
                    + "is set: a session URL is for a FORGEFLOW_DATABASE_URL that is a transaction pooler");
        }
        if ((v = env.get("FORGEFLOW_DATABASE_SCHEMA")) != null && !v.isBlank()) {
            s.databaseSchema = v.trim();
        }
        if ((v = env.get("FORGEFLOW_DATA_DIR")) != null && !v.isBlank()) {
            s.dataDirectory = v.trim();
        }
        if ((v = env.get("FORGEFLOW_ROLES")) != null) {
            s.roles = list(v);
        }
        if ((v = env.get("FORGEFLOW_WORKER_ID")) != null) {
            s.workerId = v.trim();
        }
        if ((v = env.get("FORGEFLOW_CONCURRENCY")) != null) {
            s.concurrency = integer("FORGEFLOW_CONCURRENCY", v, 1, 1000);
        }
        if ((v = env.get("FORGEFLOW_QUEUES")) != null) {
            s.queues = v.trim();
        }
        if ((v = env.get("FORGEFLOW_MAX_OUTPUT_BYTES")) != null) {
            s.maxOutputBytes = integer("FORGEFLOW_MAX_OUTPUT_BYTES", v, 1024, 16 * 1024 * 1024);
        }
        if ((v = env.get("FORGEFLOW_POLL_INTERVAL")) != null) {
            s.pollInterval = duration("FORGEFLOW_POLL_INTERVAL", v);
        }
        if ((v = env.get("FORGEFLOW_LEASE_DURATION")) != null) {
            s.leaseDuration = duration("FORGEFLOW_LEASE_DURATION", v);
        }
        if ((v = env.get("FORGEFLOW_HEARTBEAT_INTERVAL")) != null) {
            s.heartbeatInterval = duration("FORGEFLOW_HEARTBEAT_INTERVAL", v);
        }
        if ((v = env.get("FORGEFLOW_SCHEDULER_TICK")) != null) {
            s.schedulerTick = duration("FORGEFLOW_SCHEDULER_TICK", v);
        }
        if ((v = env.get("FORGEFLOW_RETRY_BASE")) != null) {
            s.retryBase = duration("FORGEFLOW_RETRY_BASE", v);
        }
        if ((v = env.get("FORGEFLOW_DRAIN_GRACE")) != null) {
            s.drainGrace = duration("FORGEFLOW_DRAIN_GRACE", v);
        }
        if ((v = env.get("FORGEFLOW_EXECUTORS")) != null) {
            s.executors = list(v);
        }
        if ((v = env.get("FORGEFLOW_API_TOKENS")) != null) {
            s.apiTokens = new ArrayList<>(List.of(v)); // parsed (and split at commas) by NodeSecurity
        }
        if ((v = env.get("FORGEFLOW_METRICS_TOKEN")) != null) {
            s.metricsToken = v.trim();
        }
        if ((v = env.get("FORGEFLOW_JOB_USER")) != null) {
            s.jobUser = v.trim();
        }
        if ((v = env.get("FORGEFLOW_NOTIFY_URL")) != null) {
            s.notifyUrl = v.trim();
        }
        if ((v = env.get("FORGEFLOW_NOTIFY_ON")) != null) {
            s.notifyOn = v.trim();
        }
        if ((v = env.get("FORGEFLOW_NOTIFY_SECRET")) != null) {
            s.notifySecret = v;
        }
        try {
            io.forgeflow.domain.job.Notify.parse(s.notifyUrl, s.notifyOn);
        } catch (io.forgeflow.domain.error.ValidationException e) {
            throw new IllegalArgumentException((e.field().equals("notify.on") ? "FORGEFLOW_NOTIFY_ON" : "FORGEFLOW_NOTIFY_URL")
                    + " is not valid: " + e.getMessage().replace("notify.url", "the URL").replace("notify.on", "the events"));
        }
        if ((v = env.get("FORGEFLOW_INSECURE")) != null) {
            s.insecure = bool("FORGEFLOW_INSECURE", v);
        }
        if ((v = env.get("FORGEFLOW_ALLOWED_ORIGINS")) != null) {
            s.allowedOrigins = new ArrayList<>(List.of(v)); // parsed (and split at commas) by NodeSecurity
        }
        if ((v = env.get("FORGEFLOW_ALLOWED_HOSTS")) != null) {
            s.allowedHosts = new ArrayList<>(List.of(v));
        }
        if ((v = env.get("FORGEFLOW_ADMIN_INSECURE")) != null) {
            s.adminInsecure = bool("FORGEFLOW_ADMIN_INSECURE", v);
        }
        if ((v = env.get("FORGEFLOW_HTTP_ALLOW_PRIVATE")) != null) {
            s.httpAllowPrivate = v.isBlank() ? null : bool("FORGEFLOW_HTTP_ALLOW_PRIVATE", v);
        }
        if ((v = env.get("FORGEFLOW_RETENTION")) != null) {
            s.retention = duration("FORGEFLOW_RETENTION", v);
        }
        if ((v = env.get("FORGEFLOW_RETENTION_INTERVAL")) != null) {
            s.retentionInterval = duration("FORGEFLOW_RETENTION_INTERVAL", v);
        }
        if ((v = env.get("FORGEFLOW_HISTORY_AFTER")) != null) {
            s.historyAfter = duration("FORGEFLOW_HISTORY_AFTER", v);
        }
        if ((v = env.get("FORGEFLOW_LOG_FORMAT")) != null) {
            s.logFormat = LogFormat.parse(v); // applied to the logging section by ForgeFlowConfiguration
        }
        if ((v = env.get("FORGEFLOW_GRPC_LISTEN_ADDR")) != null) {
            s.grpcListenAddr = v.trim(); // parsed by GrpcWiring
        }
        if ((v = env.get("FORGEFLOW_PORTS_FILE")) != null) {
            s.portsFile = v.trim();
        }
        if ((v = env.get("FORGEFLOW_GRPC_TLS_CERT")) != null) {
            s.grpcTlsCert = v.trim();
        }
        if ((v = env.get("FORGEFLOW_GRPC_TLS_KEY")) != null) {
            s.grpcTlsKey = v.trim();
        }
        if ((v = env.get("FORGEFLOW_EVENT_BUFFER")) != null) {
            s.eventBuffer = integer("FORGEFLOW_EVENT_BUFFER", v, 1, 1_000_000);
        }
        if ((v = env.get("FORGEFLOW_EVENT_STREAMS")) != null) {
            s.eventStreams = integer("FORGEFLOW_EVENT_STREAMS", v, 1, 100_000);
        }
        if ((v = env.get("FORGEFLOW_LIST_BYTE_BUDGET")) != null) {
            s.listByteBudget = integer("FORGEFLOW_LIST_BYTE_BUDGET", v, 65_536, 1_073_741_824);
        }
        if ((v = env.get("FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS")) != null) {
            s.maxConnectionsPerAddress = integer("FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS", v, 1, 1_000_000);
        }
        if ((v = env.get("FORGEFLOW_MIN_REQUEST_DATA_RATE")) != null) {
            s.minRequestDataRate = integer("FORGEFLOW_MIN_REQUEST_DATA_RATE", v, 0, Integer.MAX_VALUE);
        }
        if ((v = env.get("FORGEFLOW_REQUEST_BODY_GRACE")) != null) {
            s.requestBodyGrace = duration("FORGEFLOW_REQUEST_BODY_GRACE", v);
        }
        if ((v = env.get("FORGEFLOW_EVENT_KEEPALIVE")) != null) {
            s.eventKeepAlive = duration("FORGEFLOW_EVENT_KEEPALIVE", v);
        }
        if ((v = env.get("FORGEFLOW_STATEMENT_TIMEOUT")) != null) {
            s.statementTimeout = duration("FORGEFLOW_STATEMENT_TIMEOUT", v);
        }
        if ((v = env.get("FORGEFLOW_LOCK_TIMEOUT")) != null) {
            s.lockTimeout = duration("FORGEFLOW_LOCK_TIMEOUT", v);
        }
        if ((v = env.get("FORGEFLOW_IDLE_IN_TRANSACTION_TIMEOUT")) != null) {
            s.idleInTransactionTimeout = duration("FORGEFLOW_IDLE_IN_TRANSACTION_TIMEOUT", v);
        }
        if ((v = env.get("FORGEFLOW_RETENTION_STATEMENT_TIMEOUT")) != null) {
            s.retentionStatementTimeout = duration("FORGEFLOW_RETENTION_STATEMENT_TIMEOUT", v);
        }
        if ((v = env.get("FORGEFLOW_LEADER_SESSION_TIMEOUT")) != null) {
            s.leaderSessionTimeout = duration("FORGEFLOW_LEADER_SESSION_TIMEOUT", v);
        }
        if ((v = env.get("FORGEFLOW_MISFIRE_THRESHOLD")) != null) {
            s.misfireThreshold = duration("FORGEFLOW_MISFIRE_THRESHOLD", v);
        }
        if ((v = env.get("FORGEFLOW_MIGRATE_ON_START")) != null) {
            s.migrateOnStart = bool("FORGEFLOW_MIGRATE_ON_START", v);
        }
        if ((v = env.get("FORGEFLOW_DATABASE_POOL_SIZE")) != null) {
            int size = integer("FORGEFLOW_DATABASE_POOL_SIZE", v, 2, 1000);
            s.databasePoolSize = size;
            config.database().setMaxSize(size);
            config.database().setMinSize(Math.min(config.database().getMinSize(), size));
            config.database().setInitialSize(Math.min(config.database().getInitialSize(), size));
        }
        DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
        if ((v = env.get("FORGEFLOW_LISTEN_ADDR")) != null) {
            HostPort hp = hostPort("FORGEFLOW_LISTEN_ADDR", v);
            server.setApplicationConnectors(List.of(ForgeFlowConfiguration.http(hp.host(), hp.port())));
        }
        if ((v = env.get("FORGEFLOW_ADMIN_LISTEN_ADDR")) != null) {
            HostPort hp = hostPort("FORGEFLOW_ADMIN_LISTEN_ADDR", v);
            server.setAdminConnectors(List.of(ForgeFlowConfiguration.http(hp.host(), hp.port())));
        }
        adminOnLoopbackByDefault(server);
        slowClientLimits(server.getApplicationConnectors());
        slowClientLimits(server.getAdminConnectors());
        validate(s);
    }

    /** Request headers above 8 KiB in all are refused (431). */
    static final io.dropwizard.util.DataSize MAX_REQUEST_HEADERS = io.dropwizard.util.DataSize.kibibytes(8);

    /**
     * Oversized clients: a cap on the request headers on every HTTP connector whose YAML does not set a lower one.
     * Jetty's own minimum request data rate stays off by default: it measures from the body's first byte to when the
     * node reads it, so on a busy node a small body read late failed (a 60-byte PATCH needs only 60 ms of queueing to
     * fall under 1 KiB/s). The REST adapter's body filter enforces FORGEFLOW_MIN_REQUEST_DATA_RATE instead, from the
     * node's first read and after FORGEFLOW_REQUEST_BODY_GRACE; the YAML's minRequestDataPerSecond still applies.
     */
    static void slowClientLimits(List<io.dropwizard.jetty.ConnectorFactory> connectors) {
        for (io.dropwizard.jetty.ConnectorFactory connector : connectors) {
            if (connector instanceof io.dropwizard.jetty.HttpConnectorFactory http) {
                if (http.getMaxRequestHeaderSize().toBytes() > MAX_REQUEST_HEADERS.toBytes()) {
                    http.setMaxRequestHeaderSize(MAX_REQUEST_HEADERS);
                }
            }
        }
    }

    /**
     * An admin connector without a bind host (a YAML {@code server:} section that leaves out {@code adminConnectors}
     * gets Dropwizard's, on every interface) binds to 127.0.0.1: the admin port has no authentication.
     */
    static void adminOnLoopbackByDefault(DefaultServerFactory server) {
        for (io.dropwizard.jetty.ConnectorFactory connector : server.getAdminConnectors()) {
            if (connector instanceof io.dropwizard.jetty.HttpConnectorFactory http
                    && (http.getBindHost() == null || http.getBindHost().isBlank())) {
                http.setBindHost("127.0.0.1");
            }
        }
    }

    /** Checks what bean validation cannot: role names, the heartbeat against the lease. */
    static void validate(ForgeFlowSettings s) {
        if (s.roles.isEmpty()) {
            throw new IllegalArgumentException("FORGEFLOW_ROLES is empty: give one or more of api, scheduler, worker");
        }
        for (String role : s.roles) {
            if (!ROLES.contains(role)) {
                throw new IllegalArgumentException("FORGEFLOW_ROLES names unknown role '" + role
                        + "': use a comma-separated list of api, scheduler, worker");
            }
        }
        List<io.forgeflow.application.worker.QueueLane> lanes =
                io.forgeflow.application.worker.QueueLane.parse(s.queues, s.concurrency);
        if (lanes.stream().mapToInt(io.forgeflow.application.worker.QueueLane::slots).sum() > 1000) {
            throw new IllegalArgumentException("FORGEFLOW_QUEUES '" + s.queues + "' gives more than 1000 slots in all");
        }
        if (s.heartbeatInterval.toMilliseconds() * 2 > s.leaseDuration.toMilliseconds()) {
            throw new IllegalArgumentException("FORGEFLOW_HEARTBEAT_INTERVAL (" + s.heartbeatInterval
                    + ") must be at most half of FORGEFLOW_LEASE_DURATION (" + s.leaseDuration + ")");
        }
        for (Duration d : List.of(s.retention, s.retentionInterval, s.eventKeepAlive, s.historyAfter)) {
            if (d.toMilliseconds() <= 0) {
                throw new IllegalArgumentException("FORGEFLOW_RETENTION, FORGEFLOW_RETENTION_INTERVAL, "
                        + "FORGEFLOW_HISTORY_AFTER and FORGEFLOW_EVENT_KEEPALIVE must be positive, got " + d);
            }
        }
        if (s.leaderSessionTimeout.toMilliseconds() < 2 * s.schedulerTick.toMilliseconds()) {
            throw new IllegalArgumentException("FORGEFLOW_LEADER_SESSION_TIMEOUT (" + s.leaderSessionTimeout
                    + ") must be at least twice FORGEFLOW_SCHEDULER_TICK (" + s.schedulerTick + ")");
        }
        for (Duration d : List.of(s.statementTimeout, s.lockTimeout, s.idleInTransactionTimeout,
                s.retentionStatementTimeout)) {
            if (d.toMilliseconds() <= 0) {
                throw new IllegalArgumentException("FORGEFLOW_STATEMENT_TIMEOUT, FORGEFLOW_LOCK_TIMEOUT, "
                        + "FORGEFLOW_IDLE_IN_TRANSACTION_TIMEOUT and FORGEFLOW_RETENTION_STATEMENT_TIMEOUT must be "
                        + "positive, got " + d);
            }
        }
        for (Duration d : List.of(s.pollInterval, s.leaseDuration, s.heartbeatInterval, s.schedulerTick, s.retryBase)) {
            if (d.toMilliseconds() <= 0) {
                throw new IllegalArgumentException("durations must be positive, got " + d);
            }
        }
    }

    static List<String> list(String v) {
        List<String> out = new ArrayList<>();
        Arrays.stream(v.split(",")).map(String::trim).filter(x -> !x.isEmpty())
                .map(x -> x.toLowerCase(Locale.ROOT)).forEach(out::add);
        return out;
    }

    static int integer(String name, String v, int min, int max) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, was '" + v + "'");
        }
    }

    static boolean bool(String name, String v) {
        switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw new IllegalArgumentException(name + " must be true or false, was '" + v + "'");
        }
    }

    static Duration duration(String name, String v) {
        try {
            return Duration.parse(v.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " must be a duration such as 30s, 500ms or 2m, was '" + v + "'");
        }
    }

    static HostPort hostPort(String name, String v) {
        String t = v.trim();
        int colon = t.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(name + " must be host:port such as 127.0.0.1:8080 or 0.0.0.0:8080, was '" + v + "'");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = integer(name + " port", t.substring(colon + 1), 0, 65535);
        return new HostPort(host.isEmpty() ? "0.0.0.0" : host, port);
    }

    record HostPort(String host, int port) {
    }
}
