package io.forgeflow.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/** {@code forgeflow.*}: the starter's settings, with the embedded worker's defaults. */
@ConfigurationProperties(prefix = "forgeflow")
public class ForgeFlowProperties {
    /** Whether the starter configures anything at all. */
    private boolean enabled = true;
    /** ForgeFlow's schema in the application's database. */
    private String schema = "forgeflow";
    /** Whether ForgeFlow's migrations are applied at start (before any bean can enqueue). */
    private boolean migrations = true;
    /** Whether the embedded worker runs this application's handlers. */
    private boolean worker = true;
    /** Whether this application also takes part in the scheduler role (cron ticks, lease recovery, retention). */
    private boolean scheduler = true;
    /** Whether the @Recurring jobs are reconciled with the database at start. */
    private boolean recurring = true;
    /** Whose recurring jobs these are (default: spring.application.name, else "application"). */
    private String recurringOwner;
    /** The worker's id, unique in the cluster (default: host, pid and a random suffix). */
    private String workerId;
    /** Handlers running at once. */
    private int concurrency = 8;
    /** Which queues to take, as FORGEFLOW_QUEUES says it ("reports=2,*": reports in 2 slots of its own, every other queue in the rest); default every queue. */
    private String queues;
    /** How long a claim or heartbeat holds a run. */
    private Duration lease = Duration.ofSeconds(30);
    /** How often leases are extended (at most half the lease). */
    private Duration heartbeat = Duration.ofSeconds(10);
    /** How often an idle worker looks for due runs without a wake-up. */
    private Duration pollInterval = Duration.ofSeconds(1);
    /** On shutdown, how long running handlers may finish before their runs are released. */
    private Duration drainGrace = Duration.ofSeconds(30);
    /** With the scheduler role: finished runs older than this are deleted. */
    private Duration retention = Duration.ofDays(14);
    /** With the scheduler role: how long a finished run stays among the live runs before it moves to history. */
    private Duration historyAfter = Duration.ofHours(1);
    /**
     * With the scheduler role: the cluster's FORGEFLOW_NOTIFY_SECRET, so the notices this application hands on while
     * it leads are signed as the nodes sign theirs; empty: unsigned.
     */
    private String notifySecret = "";
    /**
     * Whether a running worker keeps the JVM alive (its own threads are daemons): an application without a web server
     * then runs until it is stopped, as a worker should.
     */
    private boolean keepAlive = true;
    /** The base of the retry backoff. */
    private Duration retryBase = Duration.ofSeconds(5);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema;
    }

    public boolean isMigrations() {
        return migrations;
    }

    public void setMigrations(boolean migrations) {
        this.migrations = migrations;
    }

    public boolean isWorker() {
        return worker;
    }

    public void setWorker(boolean worker) {
        this.worker = worker;
    }

    public boolean isScheduler() {
        return scheduler;
    }

    public void setScheduler(boolean scheduler) {
        this.scheduler = scheduler;
    }

    public boolean isRecurring() {
        return recurring;
    }

    public void setRecurring(boolean recurring) {
        this.recurring = recurring;
    }

    public String getRecurringOwner() {
        return recurringOwner;
    }

    public void setRecurringOwner(String recurringOwner) {
        this.recurringOwner = recurringOwner;
    }

    public String getWorkerId() {
        return workerId;
    }

    public void setWorkerId(String workerId) {
        this.workerId = workerId;
    }

    public int getConcurrency() {
        return concurrency;
    }

    public void setConcurrency(int concurrency) {
        this.concurrency = concurrency;
    }

    public String getQueues() {
        return queues;
    }

    public void setQueues(String queues) {
        this.queues = queues;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public Duration getDrainGrace() {
        return drainGrace;
    }

    public void setDrainGrace(Duration drainGrace) {
        this.drainGrace = drainGrace;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public Duration getHistoryAfter() {
        return historyAfter;
    }

    public void setHistoryAfter(Duration historyAfter) {
        this.historyAfter = historyAfter;
    }

    public boolean isKeepAlive() {
        return keepAlive;
    }

    public void setKeepAlive(boolean keepAlive) {
        this.keepAlive = keepAlive;
    }

    public String getNotifySecret() {
        return notifySecret;
    }

    public void setNotifySecret(String notifySecret) {
        this.notifySecret = notifySecret;
    }

    public Duration getRetryBase() {
        return retryBase;
    }

    public void setRetryBase(Duration retryBase) {
        this.retryBase = retryBase;
    }
}
