package io.forgeflow.server;

import io.forgeflow.adapter.postgres.PostgresWorkflows;
import io.forgeflow.application.workflow.WorkflowSweeper;
import io.forgeflow.adapter.postgres.PostgresNoticeOutbox;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.notice.NoticeDispatcher;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.lifecycle.Managed;
import io.forgeflow.adapter.postgres.AdvisoryLockLeaderElection;
import io.forgeflow.adapter.postgres.LeaseLeaderElection;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.adapter.postgres.DedicatedConnections;
import io.forgeflow.adapter.postgres.PostgresHealth;
import io.forgeflow.adapter.postgres.PostgresClock;
import io.forgeflow.adapter.postgres.PostgresJdbi;
import io.forgeflow.adapter.postgres.PostgresJobRepository;
import io.forgeflow.adapter.postgres.PostgresExecutorCatalog;
import io.forgeflow.adapter.postgres.PostgresHandlerRegistry;
import io.forgeflow.adapter.postgres.PostgresMigrations;
import io.forgeflow.adapter.postgres.PostgresNodeRegistry;
import io.forgeflow.adapter.postgres.PostgresQueueRepository;
import io.forgeflow.adapter.postgres.PostgresQueueStats;
import io.forgeflow.adapter.postgres.PostgresRetention;
import io.forgeflow.adapter.postgres.PostgresNotifier;
import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresRunEvents;
import io.forgeflow.adapter.postgres.PostgresRunRepository;
import io.forgeflow.adapter.postgres.PostgresWorkSignal;
import io.forgeflow.adapter.postgres.SqlEnqueueWatch;
import io.forgeflow.adapter.rest.EventStreams;
import io.forgeflow.application.event.PublishedJobs;
import io.forgeflow.application.event.PublishedRuns;
import io.forgeflow.adapter.otel.OpenTelemetryTracing;
import io.forgeflow.adapter.rest.TraceLinks;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.application.schedule.CronUtilsSchedules;
import io.forgeflow.application.node.NodePresence;
import io.forgeflow.application.schedule.ScheduleTicker;
import io.forgeflow.application.schedule.SchedulerRole;
import io.forgeflow.application.worker.Worker;
import io.forgeflow.application.worker.QueueLane;
import io.forgeflow.application.worker.WorkerSettings;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.adapter.executor.ShellRunExecutor;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunExecutor;
import io.forgeflow.domain.port.RunRepository;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Plain constructor calls that turn a configuration into a running node: adapters, use cases, the roles' loops,
 * and the HTTP surface. Nothing here decides anything.
 */
final class NodeWiring {
    private static final Logger LOG = LoggerFactory.getLogger(NodeWiring.class);
    static final String VERSION = BuildInfo.current().version();
    /** A link to a trace viewer for run responses' trace_url, {trace_id} standing for the trace id. */
    static final String TRACE_URL_TEMPLATE = "FORGEFLOW_TRACE_URL_TEMPLATE";

    private final ForgeFlowConfiguration config;
    private final ForgeFlowSettings settings;
    private final Environment environment;
    private final ManagedDataSource dataSource;
    private final NodeSecurity security;

    NodeWiring(ForgeFlowConfiguration config, Environment environment, ManagedDataSource dataSource,
               NodeSecurity security) {
        this.config = config;
        this.settings = config.forgeflow();
        this.environment = environment;
        this.dataSource = dataSource;
        this.security = security;
    }

    void wire() {
        LogFormat.quietRequestLogStatus(environment, config);
        DatabaseSettings.Sessions sessions = DatabaseSettings.sessions(config.database(), settings);
        DatabaseSettings.Mode mode = DatabaseSettings.mode(settings);
        boolean polling = mode == DatabaseSettings.Mode.POLLING;
        if (settings.migrateOnStart && !polling) {
            // the migrations' lock is a session's: behind a transaction pooler they run on the direct connection
            PostgresMigrations.migrate(sessions.pooled()
                    ? DedicatedConnections.dataSource(DatabaseSettings.dedicated(sessions, "forgeflow migrations"))
                    : dataSource, settings.databaseSchema);
        }
        if (polling) {
            // no session to hold the migrations' advisory lock: they run once, from a direct connection, beforehand
            java.util.List<String> pending = PostgresMigrations.pendingChangeSets(dataSource, settings.databaseSchema);
            if (!pending.isEmpty()) {
                throw new IllegalStateException("the database is not migrated (" + pending.size() + " changesets "
                        + "pending, first " + pending.get(0) + ") and a node without FORGEFLOW_DATABASE_SESSION_URL "
                        + "cannot migrate through the transaction pooler: run `java -jar forgeflow.jar db migrate` once "
                        + "with FORGEFLOW_DATABASE_URL pointing at PostgreSQL itself (README \"Without a session URL\")");
            }
        }
        if (sessions.pooled()) {
            PoolerSessionCheck.check(dataSource, settings);
        }
        SessionCount sessionCount = new SessionCount();
        Set<String> roles = new HashSet<>(settings.roles);
        String workerId = settings.workerId.isBlank() ? defaultWorkerId() : settings.workerId;
        Clock clock = Clock.systemUTC();
        Jdbi jdbi = PostgresJdbi.create(dataSource);
        // one LISTEN/NOTIFY for the node (wake-ups and run events); closed last (registered first)
        // LISTEN is a session's: at most this connection and the leader's go to the session URL behind a pooler
        // without a session connection nothing listens: wake-ups come by polling, events are this node's own
        PostgresNotifier notifier = polling
                ? PostgresNotifier.sendingOnly(DatabaseSettings.stateless(config.database(), sessions,
                        "notifications (sending)", null))
                : new PostgresNotifier(sessionCount.counted(DatabaseSettings.dedicated(sessions, "notifications")),
                sessions.pooled() ? DatabaseSettings.stateless(config.database(), sessions, "notifications (sending)", null)
                        : DatabaseSettings.dedicated(sessions, "notifications"), sessions.pooled());
        environment.lifecycle().manage(managed(() -> { }, notifier::close));
        // every committed run change goes to the cluster's event channel: coalesced, never inside the claim engine's
        // transactions; closed after the worker (registered before it), so its last acknowledgements are published
        PostgresRunEvents runEvents = new PostgresRunEvents(notifier);
        environment.lifecycle().manage(managed(() -> { }, runEvents::close));
        // the API's and the scheduler's run changes are published from what the repositories return
        RunChanges apiChanges = new RunChanges(runEvents, clock);
        JobRepository jobs = new PublishedJobs(new PostgresJobRepository(jdbi, null), apiChanges);
        RunRepository runs = new PublishedRuns(new PostgresRunRepository(jdbi, null), apiChanges);
        PostgresRunQueue queue = new PostgresRunQueue(jdbi, null);
        PostgresWorkflows workflows = new PostgresWorkflows(jdbi, null);
        PostgresNodeRegistry nodes = new PostgresNodeRegistry(jdbi, null);
        if (roles.contains("scheduler")) {
            refuseMixedLeadership(nodes, mode.leadership, workerId);
        }
        CronUtilsSchedules cron = new CronUtilsSchedules();
        RetryPolicy retryPolicy = new RetryPolicy(settings.retryBase.toJavaDuration(),
                max(Duration.ofMinutes(15), settings.retryBase.toJavaDuration()));

        List<RunExecutor> found = new ArrayList<>();
        ServiceLoader.load(RunExecutor.class).forEach(found::add);
        security.configure(found); // the SSRF guard, before any executor validates or runs
        ExecutorRegistry executors = new ExecutorRegistry(found, new HashSet<>(settings.executors));
        // what GET /api/nodes shows of this node's shell jobs: the containment it chose at configure, its job user
        ShellRunExecutor shell = found.stream().filter(ShellRunExecutor.class::isInstance).map(ShellRunExecutor.class::cast)
                .filter(e -> settings.roles.contains("worker")).findFirst().orElse(null);
        environment.lifecycle().manage(managed(() -> { }, executors::closeAll));
        // what enqueue() in SQL checks executor names against: every executor this node knows
        new PostgresExecutorCatalog(jdbi).record(executors.knownNames(), workerId);

        // traces (issue 31): an OTLP exporter only when FORGEFLOW_OTLP_ENDPOINT is set; closed after the worker
        Tracing tracing = OpenTelemetryTracing.fromEnvironment(System.getenv());
        if (tracing instanceof OpenTelemetryTracing otel) {
            environment.lifecycle().manage(managed(() -> { }, otel::close));
            LOG.info("traces are exported over OTLP to {}", otel.endpoint());
        }
        TraceLinks.configure(System.getenv(TRACE_URL_TEMPLATE));

        PostgresWorkSignal signal = new PostgresWorkSignal(notifier);
        environment.lifecycle().manage(managed(() -> { }, signal::close));
        // runs enqueue() adds without a NOTIFY while the workers watch (issue 40): claimed within a tick of the commit
        SqlEnqueueWatch sqlWatch = signal.watchSqlEnqueues(jdbi, roles.contains("worker"),
                runEvents::sqlEnqueuesNotStreamed);
        // the lease lasts FORGEFLOW_LEADER_SESSION_TIMEOUT, as long as a silent leader's session would
        LeaseLeaderElection lease = roles.contains("scheduler") && polling
                ? new LeaseLeaderElection(dataSource, workerId, settings.leaderSessionTimeout.toJavaDuration())
                : null;
        LeaderElection election = !roles.contains("scheduler") ? null : lease != null ? lease
                : new AdvisoryLockLeaderElection(sessionCount.counted(DatabaseSettings.leaderSession(sessions, settings)));

        PrometheusRegistry registry = new PrometheusRegistry();
        DropwizardMetricsBridge.register(environment.metrics(), registry); // snake_case names, the JVM once
        JvmMetrics.builder().register(registry);
        ForgeFlowMetrics metrics = new ForgeFlowMetrics(registry, settings.concurrency, election,
                new PostgresQueueStats(jdbi, null));
        metrics.initialize(executors.enabledNames(), BuildInfo.current());
        metrics.watchSqlEnqueues(sqlWatch::watching, sqlWatch::watchesStarted);
        environment.getApplicationContext().addServlet(new ServletHolder(new PrometheusMetricsServlet(registry)), "/metrics");
        environment.admin().addServlet("prometheus", new PrometheusMetricsServlet(registry)).addMapping("/prometheus");

        // readiness from a cached probe (at most one a second) on a connection of its own, never the workers' pool
        PostgresHealth health = new PostgresHealth(DatabaseSettings.stateless(config.database(), sessions,
                "readiness probe", DatabaseSettings.limitsOf(settings)), Duration.ofSeconds(1), settings.databaseSchema);
        environment.lifecycle().manage(managed(() -> { }, health::close));
        NodeHealthChecks.registerDatabase(environment.healthChecks(), health);
        // notices (issue 45): the default notify of jobs submitted alone or in a batch, checked as the http executor checks URLs
        io.forgeflow.domain.job.Notify notifyDefault = io.forgeflow.domain.job.Notify.parse(settings.notifyUrl,
                settings.notifyOn);
        if (notifyDefault != null) {
            try {
                executors.validate("http", java.util.Map.of("url", notifyDefault.url()));
            } catch (io.forgeflow.domain.error.ValidationException e) {
                throw new IllegalStateException("FORGEFLOW_NOTIFY_URL cannot be used: " + e.getMessage()
                        .replace("payload.url", "the URL"), e);
            }
        }
        io.forgeflow.domain.port.TenantDirectory tenantDirectory = new io.forgeflow.adapter.postgres.PostgresTenantDirectory(jdbi);
        // submission, resume and trigger compute due times on the database's clock, as every later decision does
        ApiWiring api = new ApiWiring(environment, jobs, runs, nodes, executors, cron, signal, new PostgresClock(jdbi, clock), health,
                settings.heartbeatInterval.toJavaDuration(), roles.contains("api"), security,
                new PostgresQueueRepository(jdbi, null),
                new HandlerWaits(new PostgresHandlerRegistry(jdbi, null)), // waiting_for: embedded handlers
                new ListBudget(settings.listByteBudget)).tracing(tracing)
                .slowClients(new io.forgeflow.adapter.rest.SlowClientLimits(settings.maxConnectionsPerAddress,
                        settings.minRequestDataRate, settings.requestBodyGrace.toJavaDuration()))
                .workflows(workflows, metrics::batchCreated).notifyDefault(notifyDefault)
                .tenants(tenantDirectory)
                .tenantSettings(new io.forgeflow.adapter.postgres.PostgresTenantRepository(jdbi, null))
                .debounced(metrics::debounced);
        api.register();
        EventStreams streams = roles.contains("api") ? ObservabilityWiring.liveEvents(environment, runEvents, settings,
                tenantDirectory) : null;
        // the gRPC API (issue 41), when FORGEFLOW_GRPC_LISTEN_ADDR is set; /api/nodes shows its address
        io.forgeflow.adapter.grpc.GrpcApi grpc = streams == null ? null
                : GrpcWiring.wire(environment, settings, security, api.grpcUseCases(), streams.feed(), registry);
        PortsFile.install(environment, settings.portsFile, grpc == null ? null : grpc::port);
        metrics.watchEvents(runEvents::publishedCount, runEvents::droppedCount, runEvents::receivedCount,
                streams == null ? null : streams::openStreams);

        if (roles.contains("scheduler")) {
            ScheduleTicker ticker = new ScheduleTicker(jobs, cron, election, signal,
                    settings.misfireThreshold.toJavaDuration(), metrics::missed);
            LeaseRescuer rescuer = new LeaseRescuer(queue, election,
                    new OutcomePolicy(retryPolicy, new SplittableRandom(new SecureRandom().nextLong())),
                    new RunChanges(runEvents, clock), metrics::recovered, runs, tracing) // spans of runs it ends
                    .holdingOffAfterBreaks(settings.leaseDuration.toJavaDuration());
            Duration tick = settings.schedulerTick.toJavaDuration();
            // alive while a pass starts at least every three ticks, and never less than the leader's session timeout
            NodeHealthChecks.SchedulerPulse pulse = new NodeHealthChecks.SchedulerPulse(System::nanoTime,
                    max(tick.multipliedBy(3), settings.leaderSessionTimeout.toJavaDuration()), election::isLeader);
            environment.healthChecks().register("leader-election", pulse);
            WorkflowSweeper sweeper = new WorkflowSweeper(workflows, election, metrics::batchesCompleted);
            // the notices' http jobs go through the one submission use case (never given the default notify)
            NoticeDispatcher notices = new NoticeDispatcher(new PostgresNoticeOutbox(jdbi),
                    new SubmitJob(jobs, executors, cron, signal, new PostgresClock(jdbi, clock), tracing, workflows),
                    election, settings.notifySecret == null || settings.notifySecret.isEmpty() ? null
                    : settings.notifySecret.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            SchedulerRole scheduler = new SchedulerRole(ticker, rescuer, election, tick, pulse::beat, () -> {
                try {
                    sweeper.run();
                } finally {
                    notices.run();
                }
            });
            environment.lifecycle().manage(managed(scheduler::start, () -> {
                scheduler.stop();
                if (election instanceof java.io.Closeable closeable) {
                    try {
                        closeable.close();
                    } catch (java.io.IOException e) {
                        LOG.debug("closing the election: {}", e.getMessage());
                    }
                }
            }));
            ObservabilityWiring.retention(environment, new PostgresRetention(jdbi, null,
                    settings.retentionStatementTimeout.toJavaDuration()), nodes, election, settings,
                    metrics);
        }
        if (roles.contains("worker")) {
            WorkerSettings ws = new WorkerSettings(workerId, settings.concurrency, settings.pollInterval.toJavaDuration(),
                    settings.leaseDuration.toJavaDuration(), settings.heartbeatInterval.toJavaDuration(),
                    settings.drainGrace.toJavaDuration(), settings.maxOutputBytes, retryPolicy)
                    .withLanes(QueueLane.parse(settings.queues, settings.concurrency));
            Worker worker = new Worker(ws, queue, executors, signal, new SplittableRandom(new SecureRandom().nextLong()),
                    metrics, runEvents, tracing);
            NodeHealthChecks.WorkerLoops loops = new NodeHealthChecks.WorkerLoops(workerId);
            environment.healthChecks().register("worker-loops", loops);
            environment.lifecycle().manage(managed(() -> {
                worker.start();
                loops.capture();
            }, worker::stop));
        }
        Instant startedAt = clock.instant();
        NodePresence presence = new NodePresence(nodes,
                () -> new NodeInfo(workerId, roles, VERSION, startedAt, election != null && election.isLeader(),
                        shell == null ? null : shell.containment().label(), shell == null ? null : shell.jobUser(),
                        GrpcWiring.advertised(grpc, settings), mode.pooling, mode.wakeUps,
                        election == null ? null : mode.leadership, lease == null || !lease.isLeader() ? null : lease.term(),
                        connections(sessionCount)),
                settings.heartbeatInterval.toJavaDuration());
        environment.lifecycle().manage(managed(presence::start, presence::stop));
        LOG.info("node {} (ForgeFlow {}) roles {}", workerId, VERSION, roles);
    }

    /**
     * A lease and an advisory lock do not exclude each other: a scheduler node refuses to start while a live scheduler
     * node of the cluster campaigns the other way (one that does not say, an embedded worker's scheduler or an older
     * node, campaigns by advisory lock). Checked at start only: switch every scheduler node at once.
     */
    private void refuseMixedLeadership(PostgresNodeRegistry nodes, String leadership, String workerId) {
        long live = Math.max(1, settings.heartbeatInterval.toJavaDuration().multipliedBy(3).toSeconds());
        for (NodeRegistry.NodeStatus other : nodes.list(live)) {
            NodeRegistry.NodeInfo info = other.info();
            String theirs = info.leadership() != null ? info.leadership() : "advisory_lock";
            if (!info.workerId().equals(workerId) && info.roles().contains("scheduler") && !theirs.equals(leadership)) {
                throw new IllegalStateException("scheduler node " + info.workerId() + " campaigns by " + theirs
                        + " and this one would by " + leadership + ": both could lead at once. Give every scheduler "
                        + "node of the cluster the same FORGEFLOW_DATABASE_SESSION_URL / FORGEFLOW_DATABASE_POOLING "
                        + "choice (README \"Without a session URL\")");
            }
        }
    }

    /** The pool's size and borrowed connections now, and the open session connections (GET /api/nodes). */
    private NodeRegistry.Connections connections(SessionCount sessions) {
        if (dataSource instanceof org.apache.tomcat.jdbc.pool.DataSourceProxy pool) {
            return new NodeRegistry.Connections(pool.getMaxActive(), pool.getNumActive(), sessions.open());
        }
        return new NodeRegistry.Connections(config.database().getMaxSize(), 0, sessions.open());
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    static String defaultWorkerId() {
        return NodePresence.defaultWorkerId();
    }

    static Managed managed(Runnable start, Runnable stop) {
        return new Managed() {
            @Override
            public void start() {
                start.run();
            }

            @Override
            public void stop() {
                stop.run();
            }
        };
    }
}
