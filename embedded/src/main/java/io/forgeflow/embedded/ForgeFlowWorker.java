package io.forgeflow.embedded;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.application.executor.HandlerPayload;
import io.forgeflow.application.node.NodePresence;

import javax.sql.DataSource;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A ForgeFlow worker inside the application's JVM: claims the runs of executor {@code java} whose handler it has and
 * runs them in-process, with a node's guarantees (leases, heartbeats, fenced acknowledgements, retries, dead letters,
 * timeouts, cancellation, drain on {@link #close()}). Standalone nodes and embedded workers share one database; each
 * claims only what it can run.
 *
 * <pre>{@code
 * try (ForgeFlowWorker worker = ForgeFlowWorker.builder()
 *         .dataSource(appDataSource)
 *         .workerId("billing-7")
 *         .concurrency(8)
 *         .handler("send-receipt", ctx -> receipts.send(ctx.payload().get("order_id").asText()))
 *         .handler("nightly-report", ReportJob.class)
 *         .start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Connections come from the application's pool: short ones for each statement, and three held for as long as the
 * worker runs (the wake-ups' LISTEN session, and the NOTIFY sessions of wake-ups and of run events; four with the
 * scheduler role, whose leadership is a session of its own), so the pool needs that many more than the application
 * uses. While
 * ForgeFlow holds a connection its session uses ForgeFlow's schema and statement limits; it gives it back as it came.
 * Behind PgBouncer in transaction mode, see {@link Builder#transactionPooling}: no session state, one held connection.
 */
public final class ForgeFlowWorker implements AutoCloseable {
    private final EmbeddedAssembly parts;

    private ForgeFlowWorker(EmbeddedAssembly parts) {
        this.parts = parts;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** This worker's id in leases, attempts and {@code GET /api/nodes}. */
    public String workerId() {
        return parts.workerId();
    }

    /** The handler names this worker runs. */
    public Set<String> handlers() {
        return parts.handlers();
    }

    /** Whether this worker leads the scheduler now (always false without the scheduler role). */
    public boolean isLeader() {
        return parts.isLeader();
    }

    /** Runs this worker holds now: executing, or claimed and about to start. */
    public int busySlots() {
        return parts.busySlots();
    }

    /** Handlers that ignored an interruption, whose attempt ended without them, and whose threads still run. */
    public int handlersLeftBehind() {
        return parts.handlersLeftBehind();
    }

    /**
     * Drains and stops: claims nothing more, lets running handlers finish for up to the drain grace, then interrupts
     * the rest and releases their runs to the queue (not counted against their attempts), withdraws its handlers and
     * its node row, gives up the scheduler's leadership, and returns the held connections to the pool. Idempotent.
     */
    @Override
    public void close() {
        parts.stop();
    }

    /** Settings of an embedded worker; {@link #dataSource} and at least one handler (or the scheduler role) are required. */
    public static final class Builder {
        DataSource dataSource;
        String workerId;
        int concurrency = 8;
        String queues;
        final Map<String, Supplier<JobHandler>> handlers = new LinkedHashMap<>();
        boolean scheduler;
        String schema = "forgeflow";
        boolean migrate = true;
        boolean transactionPooling;
        Duration lease = Duration.ofSeconds(30);
        Duration heartbeatInterval = Duration.ofSeconds(10);
        Duration pollInterval = Duration.ofSeconds(1);
        Duration drainGrace = Duration.ofSeconds(30);
        Duration interruptGrace = Duration.ofSeconds(5);
        Duration retryBase = Duration.ofSeconds(5);
        Duration schedulerTick = Duration.ofSeconds(1);
        Duration retention = Duration.ofDays(14);
        Duration historyAfter = io.forgeflow.application.retention.RetentionSweeper.DEFAULT_HISTORY_AFTER;
        byte[] notifySecret;
        int maxOutputBytes = 64 * 1024;
        ObjectMapper objectMapper;
        WorkerMetrics metrics = WorkerMetrics.NONE;
        Tracing tracing = Tracing.NONE;

        private Builder() {
        }

        /** The application's connection pool (required): ForgeFlow's statements and its held sessions borrow from it. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** The worker's id, unique in the cluster, 1 to 200 characters (default: {@code <host>-<pid>-<4 hex>}). */
        public Builder workerId(String workerId) {
            if (workerId == null || workerId.isBlank() || workerId.length() > 200) {
                throw new IllegalArgumentException("workerId must be 1 to 200 characters and not blank, e.g. \"billing-7\"");
            }
            this.workerId = workerId;
            return this;
        }

        /** Handlers running at once, 1 to 1000 (default 8). */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1 || concurrency > 1000) {
                throw new IllegalArgumentException("concurrency must be between 1 and 1000, was " + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /** Which queues to take, as {@code FORGEFLOW_QUEUES} says it ({@code billing:2,*:6}); default every queue. */
        public Builder queues(String spec) {
            this.queues = spec;
            return this;
        }

        /** Registers {@code handler} (one instance for every attempt: it must be thread-safe) under {@code name}. */
        public Builder handler(String name, JobHandler handler) {
            Objects.requireNonNull(handler, "handler");
            return add(name, () -> handler);
        }

        /**
         * Registers a handler class under {@code name}: a new instance (public no-argument constructor) for every
         * attempt, so it need not be thread-safe.
         */
        public Builder handler(String name, Class<? extends JobHandler> type) {
            Objects.requireNonNull(type, "type");
            Constructor<? extends JobHandler> constructor;
            try {
                constructor = type.getConstructor();
            } catch (NoSuchMethodException e) {
                throw new IllegalArgumentException("handler class " + type.getName() + " needs a public constructor "
                        + "without arguments (or register an instance: handler(name, new " + type.getSimpleName() + "(...)))");
            }
            if (Modifier.isAbstract(type.getModifiers())) {
                throw new IllegalArgumentException("handler class " + type.getName() + " is abstract");
            }
            return add(name, () -> {
                try {
                    return constructor.newInstance();
                } catch (InvocationTargetException e) {
                    throw new IllegalStateException(e.getCause() == null ? e.toString() : e.getCause().toString(), e);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e.toString(), e);
                }
            });
        }

        private Builder add(String name, Supplier<JobHandler> source) {
            if (!HandlerPayload.isValidName(name)) {
                throw new IllegalArgumentException("handler name must be " + HandlerPayload.NAME_RULE + ", e.g. "
                        + "\"send-receipt\"; was " + (name == null ? "null" : "'" + name + "'"));
            }
            if (handlers.putIfAbsent(name, source) != null) {
                throw new IllegalArgumentException("handler '" + name + "' is registered twice");
            }
            return this;
        }

        /**
         * Also run the scheduler role (leader election, cron ticks, lease recovery, retention, the workflows' sweep and
         * the notices' dispatch); default false.
         */
        public Builder scheduler(boolean scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        /** ForgeFlow's schema in the database (default {@code forgeflow}, as {@code FORGEFLOW_DATABASE_SCHEMA}). */
        public Builder schema(String schema) {
            this.schema = schema;
            return this;
        }

        /** Whether {@link #start()} applies ForgeFlow's migrations (default true, as a node does). */
        public Builder migrate(boolean migrate) {
            this.migrate = migrate;
            return this;
        }

        /**
         * The pool reaches PostgreSQL through a transaction pooler (PgBouncer with {@code pool_mode = transaction});
         * default false. ForgeFlow then keeps no session state on its connections: it uses them as the pool gives
         * them (the role's {@code search_path} must be ForgeFlow's schema, set in the database as README "Behind
         * PgBouncer in transaction mode" shows; {@link #start()} checks it), nothing LISTENs (wake-ups come by polling
         * every {@link #pollInterval}), it holds one connection instead of three (the NOTIFY sender), and it does not
         * migrate (migrations need a session: {@link #start()} refuses while one is pending). Not with the scheduler
         * role: leave the scheduler to the nodes. The pool's URL needs {@code prepareThreshold=0}.
         */
        public Builder transactionPooling(boolean transactionPooling) {
            this.transactionPooling = transactionPooling;
            return this;
        }

        /** How long a claim or heartbeat holds a run (default 30 s). */
        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        /** How often leases are extended and handlers re-announced (default 10 s; at most half the lease). */
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        /** How often an idle worker looks for due runs without a wake-up (default 1 s). */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        /** On {@link #close()}, how long running handlers may finish before their runs are released (default 30 s). */
        public Builder drainGrace(Duration drainGrace) {
            this.drainGrace = drainGrace;
            return this;
        }

        /** How long an interrupted handler (timeout, cancellation) may take to end before it is reported (default 5 s). */
        public Builder interruptGrace(Duration interruptGrace) {
            this.interruptGrace = interruptGrace;
            return this;
        }

        /** The base of the retry backoff (default 5 s; full jitter, capped at 15 minutes). */
        public Builder retryBase(Duration retryBase) {
            this.retryBase = retryBase;
            return this;
        }

        /** The scheduler role's tick (default 1 s). */
        public Builder schedulerTick(Duration schedulerTick) {
            this.schedulerTick = schedulerTick;
            return this;
        }

        /**
         * With the scheduler role: the cluster's {@code FORGEFLOW_NOTIFY_SECRET}, so the notices this worker hands on
         * while it leads are signed as the nodes sign theirs (null or empty: unsigned, the default).
         */
        public Builder notifySecret(String secret) {
            this.notifySecret = secret == null || secret.isEmpty() ? null
                    : secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            return this;
        }

        /** With the scheduler role: finished runs older than this are deleted (default 14 days). */
        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        /**
         * With the scheduler role: a finished run stays among the live runs this long, then moves with its attempts to
         * the finished history, whose days retention drops whole (default 1 hour; FORGEFLOW_HISTORY_AFTER on nodes).
         */
        public Builder historyAfter(Duration historyAfter) {
            if (historyAfter == null || historyAfter.isNegative() || historyAfter.isZero()) {
                throw new IllegalArgumentException("historyAfter must be positive, was " + historyAfter);
            }
            this.historyAfter = historyAfter;
            return this;
        }

        /** The most output kept per attempt, the tail (default 64 KiB). */
        public Builder maxOutputBytes(int maxOutputBytes) {
            if (maxOutputBytes < 1) {
                throw new IllegalArgumentException("maxOutputBytes must be at least 1, was " + maxOutputBytes);
            }
            this.maxOutputBytes = maxOutputBytes;
            return this;
        }

        /** Reads {@link JobContext#payloadAs} (default: a plain mapper that ignores unknown fields, modules found). */
        public Builder objectMapper(ObjectMapper objectMapper) {
            this.objectMapper = Objects.requireNonNull(objectMapper, "objectMapper");
            return this;
        }

        /**
         * Records the spans of attempts and runs and runs each handler inside its attempt's span (default: none).
         * {@code OpenTelemetryTracing.fromEnvironment(System.getenv())} of module {@code forgeflow-adapters-otel}
         * exports them over OTLP (README, "Traces").
         */
        public Builder tracing(Tracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        /** Told of claims, attempts, lost leases and handlers that ignore interruption (default: nothing). */
        public Builder metrics(WorkerMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Checks the settings, migrates (unless told not to), registers the worker's handlers and starts claiming.
         *
         * @throws IllegalArgumentException naming the setting at fault
         * @throws IllegalStateException    when the database cannot be reached or migrated
         */
        public ForgeFlowWorker start() {
            if (dataSource == null) {
                throw new IllegalArgumentException("dataSource is required: the application's connection pool");
            }
            if (transactionPooling && scheduler) {
                throw new IllegalArgumentException("scheduler(true) cannot go with transactionPooling(true): the "
                        + "leader's advisory lock needs a session; leave the scheduler to the nodes");
            }
            if (handlers.isEmpty() && !scheduler) {
                throw new IllegalArgumentException("register at least one handler (handler(name, ctx -> ...)), or ask "
                        + "for the scheduler role alone (scheduler(true))");
            }
            if (workerId == null) {
                workerId = NodePresence.defaultWorkerId();
            }
            if (objectMapper == null) {
                objectMapper = new ObjectMapper().findAndRegisterModules()
                        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
            }
            return new ForgeFlowWorker(EmbeddedAssembly.start(this));
        }
    }
}
