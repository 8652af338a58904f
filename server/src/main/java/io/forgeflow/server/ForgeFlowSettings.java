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

    /** A cron tick older than this when the scheduler reaches it counts as missed (catch_up applies). Default 60s. */
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

    /** Run migrations when the node starts. Default true; {@code db migrate} exists for operators who prefer it. */
    @JsonProperty
    public boolean migrateOnStart = true;
}
