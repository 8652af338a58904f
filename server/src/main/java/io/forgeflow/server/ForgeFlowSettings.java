package io.forgeflow.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code forgeflow:} section of the configuration. Every field can also be set from the environment
 * ({@link EnvironmentOverrides}); the environment wins.
 */
public class ForgeFlowSettings {

    /**
     * The database, as {@code postgresql://user:pass@host:port/db} or {@code jdbc:postgresql://host:port/db}
     * (FORGEFLOW_DATABASE_URL). Empty: a single-node development database is started in {@code dataDirectory}.
     */
    @JsonProperty
    public String databaseUrl = "";

    /**
     * Direct connections for the few session features a node needs (FORGEFLOW_DATABASE_SESSION_URL): the LISTEN
     * session, the scheduler leader's advisory lock and the migrations. Set it when {@code databaseUrl} goes through
     * PgBouncer in transaction mode: the pool then sends no session settings and prepares no server-side statements.
     * Empty (the default): everything goes to {@code databaseUrl}.
     */
    @JsonProperty
    public String databaseSessionUrl = "";

    /**
     * How {@code databaseUrl} reaches PostgreSQL (FORGEFLOW_DATABASE_POOLING): {@code direct}, or {@code transaction}
     * through PgBouncer in transaction mode. Empty (the default): {@code transaction} when {@code databaseSessionUrl}
     * is set, {@code direct} otherwise. {@code transaction} without a session URL: wake-ups by polling, leadership by
     * the lease row, migrations not at start (README "Without a session URL").
     */
    @JsonProperty
    public String databasePooling = "";

    /**
     * The most pooled connections of the node (FORGEFLOW_DATABASE_POOL_SIZE); 0 (the default): derived from its roles
     * and concurrency ({@link ConnectionBudget}).
     */
    @JsonProperty
    public int databasePoolSize = 0;

    /**
     * The PostgreSQL schema of ForgeFlow's tables and functions (FORGEFLOW_DATABASE_SCHEMA), created by the
     * migrations; an install of an earlier release in {@code public} is moved into it. Default {@code forgeflow}.
     */
    @JsonProperty
    public String databaseSchema = "forgeflow";

    /** Where the development database keeps its files when no databaseUrl is set. Default {@code ./forgeflow-data}. */
    @JsonProperty
    public String dataDirectory = "forgeflow-data";

    /** Roles of this node: any of api, scheduler, worker (FORGEFLOW_ROLES, default all three). */
    @JsonProperty
    @NotNull
    public List<String> roles = new ArrayList<>(List.of("api", "scheduler", "worker"));

    /** This node's identity in leases and attempt rows (FORGEFLOW_WORKER_ID). Default: host name, pid and a random suffix. */
    @JsonProperty
    public String workerId = "";

    /** Execution slots of the worker (FORGEFLOW_CONCURRENCY). Default 16. */
    @JsonProperty
    @Min(1)
    @Max(1000)
    public int concurrency = 16;

    /**
     * The queues this node's worker takes (FORGEFLOW_QUEUES): a comma-separated list of {@code name} or
     * {@code name=slots} ("reports=2,webhooks=16"); queues with slots get their own, the others share
     * {@code concurrency}; {@code *} stands for every queue not named. Default: every queue, in {@code concurrency}
     * slots.
     */
    @JsonProperty
    public String queues = "";

    /** How often an idle worker polls for due runs when no wake-up arrives (FORGEFLOW_POLL_INTERVAL). Default 1s. */
    @JsonProperty
    @NotNull
    public Duration pollInterval = Duration.seconds(1);

    /** How long a claim or heartbeat holds a run (FORGEFLOW_LEASE_DURATION). Default 30s. */
    @JsonProperty
    @NotNull
    public Duration leaseDuration = Duration.seconds(30);

    /** How often a worker extends its leases (FORGEFLOW_HEARTBEAT_INTERVAL). Default 10s; at most half the lease. */
    @JsonProperty
    @NotNull
    public Duration heartbeatInterval = Duration.seconds(10);

    /** How often scheduler nodes campaign and the leader fires due ticks (FORGEFLOW_SCHEDULER_TICK). Default 1s. */
    @JsonProperty
    @NotNull
    public Duration schedulerTick = Duration.seconds(1);

    /** Base of the exponential retry backoff (FORGEFLOW_RETRY_BASE). Default 5s; the cap is 15 minutes. */
    @JsonProperty
    @NotNull
    public Duration retryBase = Duration.seconds(5);

    /** On SIGTERM, how long running runs may finish before they are released (FORGEFLOW_DRAIN_GRACE). Default 60s. */
    @JsonProperty
    @NotNull
    public Duration drainGrace = Duration.seconds(60);

    /**
     * A cron tick older than this when the scheduler reaches it counts as missed (catch_up applies)
     * (FORGEFLOW_MISFIRE_THRESHOLD). Default 60s.
     */
    @JsonProperty
    @NotNull
    public Duration misfireThreshold = Duration.seconds(60);

    /** Executors this node's worker runs (FORGEFLOW_EXECUTORS, comma-separated). Empty: all registered. */
    @JsonProperty
    @NotNull
    public List<String> executors = new ArrayList<>();

    /** Most output kept per attempt, in bytes (FORGEFLOW_MAX_OUTPUT_BYTES). Default 65536 (the tail is kept). */
    @JsonProperty
    @Min(1024)
    @Max(16 * 1024 * 1024)
    public int maxOutputBytes = 64 * 1024;

    /**
     * Run migrations when the node starts (FORGEFLOW_MIGRATE_ON_START). Default true; {@code db migrate} exists for
     * operators who prefer it.
     */
    @JsonProperty
    public boolean migrateOnStart = true;

    /**
     * Bearer tokens of the REST API (FORGEFLOW_API_TOKENS, comma-separated), each {@code scopes:token} with the scopes
     * read, operate, submit, admin joined by {@code +} ({@code admin:s3cret}, {@code read+operate:0pst0ken}); a token
     * may be written {@code sha256:<hex>} of itself. Empty (the default): the API is open, and the node refuses to
     * listen on a non-loopback address unless {@link #insecure}.
     */
    @JsonProperty
    @NotNull
    public List<String> apiTokens = new ArrayList<>();

    /** A bearer token for {@code /metrics} (FORGEFLOW_METRICS_TOKEN; plain or {@code sha256:<hex>}). Empty: open. */
    @JsonProperty
    public String metricsToken = "";

    /**
     * Listen on a non-loopback address without API tokens anyway (FORGEFLOW_INSECURE=true): anyone who reaches the
     * port can run commands as this node's user. Logs a warning at start and shows one on {@code /readyz}. Default
     * false.
     */
    @JsonProperty
    public boolean insecure = false;

    /**
     * Web page origins, besides the node's own, that may send state-changing requests (FORGEFLOW_ALLOWED_ORIGINS,
     * comma-separated {@code scheme://host[:port]}, e.g. {@code https://ops.example.com}). Default none: a POST, PUT,
     * PATCH or DELETE from another origin gets 403, on the API and admin ports, with or without tokens.
     */
    @JsonProperty
    @NotNull
    public List<String> allowedOrigins = new ArrayList<>();

    /**
     * Host names, besides loopback ones, that the node answers to (FORGEFLOW_ALLOWED_HOSTS, comma-separated, e.g.
     * {@code forgeflow.internal,10.0.0.5}). Default none: a node without API tokens, and the admin port, answer only
     * requests whose Host is localhost, 127.0.0.0/8 or [::1] (DNS rebinding); with tokens any Host is served unless
     * this is set.
     */
    @JsonProperty
    @NotNull
    public List<String> allowedHosts = new ArrayList<>();

    /**
     * Let the admin port listen on a non-loopback address (FORGEFLOW_ADMIN_INSECURE=true): it has no authentication
     * (thread dumps, tasks). Default false: such a node refuses to start.
     */
    @JsonProperty
    public boolean adminInsecure = false;

    /**
     * Whether the http executor may call loopback, private and link-local addresses (FORGEFLOW_HTTP_ALLOW_PRIVATE,
     * true or false). Unset (the default): allowed when the API listens on loopback only, refused (the SSRF guard)
     * when it listens on any other address.
     */
    @JsonProperty
    public Boolean httpAllowPrivate = null;

    /**
     * How long finished runs (succeeded, dead, cancelled) are kept, counted from {@code finished_at}
     * (FORGEFLOW_RETENTION). Default 14 days. Older ones are deleted by the scheduler leader with their attempts, then
     * completed or cancelled jobs unchanged for as long that have no runs left.
     */
    @JsonProperty
    @NotNull
    public Duration retention = Duration.days(14);

    /**
     * How long a finished run stays among the live runs before the leader moves it, with its attempts, to the finished
     * history (run_history, daily partitions dropped whole at retention) (FORGEFLOW_HISTORY_AFTER). Default 1h. At
     * or above {@link #retention}, nothing moves and finished runs are deleted row by row at retention.
     */
    @JsonProperty
    @NotNull
    public Duration historyAfter = Duration.hours(1);

    /** How often the leader looks for history to delete (FORGEFLOW_RETENTION_INTERVAL). Default 1m. */
    @JsonProperty
    @NotNull
    public Duration retentionInterval = Duration.minutes(1);

    /**
     * Log line format (FORGEFLOW_LOG_FORMAT): {@code text} (default) or {@code json}, one JSON object per line with
     * the run fields (run_id, job_id, attempt, worker_id) at top level. Applies to every appender of the
     * {@code logging:} section and to the request log.
     */
    @JsonProperty
    @NotNull
    public String logFormat = "text";

    /**
     * The gRPC API's address (FORGEFLOW_GRPC_LISTEN_ADDR): {@code port}, {@code :port} (both on loopback) or
     * {@code host:port}. Empty (the default): no gRPC. api nodes only; README "gRPC".
     */
    @JsonProperty
    public String grpcListenAddr = "";

    /** PEM certificate chain and private key for gRPC over TLS (FORGEFLOW_GRPC_TLS_CERT, FORGEFLOW_GRPC_TLS_KEY). */
    @JsonProperty
    public String grpcTlsCert = "";

    @JsonProperty
    public String grpcTlsKey = "";

    /** Run events an api node keeps for {@code Last-Event-ID} replay (FORGEFLOW_EVENT_BUFFER). Default 10000. */
    @JsonProperty
    @Min(1)
    @Max(1_000_000)
    public int eventBuffer = 10_000;

    /** The most {@code /api/events} streams this node serves at once (FORGEFLOW_EVENT_STREAMS); more get 503. 1000. */
    @JsonProperty
    @Min(1)
    @Max(100_000)
    public int eventStreams = 1_000;

    /**
     * The most bytes the items of one list page hold (FORGEFLOW_LIST_BYTE_BUDGET): a page of {@code GET /api/runs} or
     * {@code /api/jobs} stops early rather than pass it, with a cursor to continue. Default 4194304 (4 MiB).
     */
    @JsonProperty
    @Min(65_536)
    @Max(1_073_741_824)
    public int listByteBudget = 4 * 1024 * 1024;

    /**
     * The most open connections from one client address (FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS), on the API and admin
     * ports; the next one is closed unanswered. Behind a reverse proxy every client is the proxy: raise it. Default 1024.
     */
    @JsonProperty
    @Min(1)
    @Max(1_000_000)
    public int maxConnectionsPerAddress = 1024;

    /**
     * The slowest a request body may arrive once its grace is over, in bytes per second
     * (FORGEFLOW_MIN_REQUEST_DATA_RATE); slower: 408 and the connection closed. 0: no minimum. Default 8192.
     */
    @JsonProperty
    @Min(0)
    public long minRequestDataRate = 8192;

    /** How long a request body may arrive at any pace, from the node's first read of it (FORGEFLOW_REQUEST_BODY_GRACE). Default 3s. */
    @JsonProperty
    @NotNull
    public Duration requestBodyGrace = Duration.seconds(3);

    /** How often an idle event stream gets a keep-alive comment (FORGEFLOW_EVENT_KEEPALIVE). Default 15s. */
    @JsonProperty
    @NotNull
    public Duration eventKeepAlive = Duration.seconds(15);

    /**
     * {@code statement_timeout} of every pooled session (FORGEFLOW_STATEMENT_TIMEOUT): the longest one statement may
     * run before the server cancels it and its loop retries. Default 30s.
     */
    @JsonProperty
    @NotNull
    public Duration statementTimeout = Duration.seconds(30);

    /** {@code lock_timeout} of every session (FORGEFLOW_LOCK_TIMEOUT): the longest wait for a lock. Default 5s. */
    @JsonProperty
    @NotNull
    public Duration lockTimeout = Duration.seconds(5);

    /**
     * {@code idle_in_transaction_session_timeout} of every session (FORGEFLOW_IDLE_IN_TRANSACTION_TIMEOUT): a session
     * that leaves a transaction open and silent this long (its JVM paused) is ended, releasing its locks. Default 10s.
     */
    @JsonProperty
    @NotNull
    public Duration idleInTransactionTimeout = Duration.seconds(10);

    /** {@code statement_timeout} of a retention batch (FORGEFLOW_RETENTION_STATEMENT_TIMEOUT). Default 5m. */
    @JsonProperty
    @NotNull
    public Duration retentionStatementTimeout = Duration.minutes(5);

    /**
     * {@code idle_session_timeout} of the leader's session (FORGEFLOW_LEADER_SESSION_TIMEOUT): a leader that stops
     * talking this long (SIGSTOP, a VM pause, a dead host) loses its session and the lock, and a standby leads at its
     * next campaign. At least twice the scheduler tick. Default 10s.
     */
    @JsonProperty
    @NotNull
    public Duration leaderSessionTimeout = Duration.seconds(10);

    /**
     * The OS user shell jobs run as ({@code FORGEFLOW_JOB_USER}, e.g. {@code nobody}); needs a node running as root.
     * Empty: the node's own user (a root node then warns that its jobs run as root).
     */
    @JsonProperty
    public String jobUser = "";

    /** FORGEFLOW_PORTS_FILE: where the node writes the ports it bound once it listens (README "Configuration"). */
    @JsonProperty
    public String portsFile = "";

    /**
     * The cluster's default notices ({@code FORGEFLOW_NOTIFY_URL}, issue 45): the notify URL of a job submitted, alone or in a batch,
     * without {@code notify}. Empty: none.
     */
    @JsonProperty
    public String notifyUrl = "";

    /** The events of the default notices ({@code FORGEFLOW_NOTIFY_ON}, comma-separated); empty: all three. */
    @JsonProperty
    public String notifyOn = "";

    /**
     * The key the leader signs notices with ({@code FORGEFLOW_NOTIFY_SECRET}, or {@code _FILE}): each notice's request
     * carries {@code X-ForgeFlow-Signature: sha256=<hex HMAC-SHA256 of the body>}. Never stored. Empty: unsigned.
     */
    @JsonProperty
    public String notifySecret = "";
}
