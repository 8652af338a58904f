package io.forgeflow.embedded;

import io.forgeflow.adapter.postgres.AdvisoryLockLeaderElection;
import io.forgeflow.adapter.postgres.ApplicationPool;
import io.forgeflow.adapter.postgres.PostgresExecutorCatalog;
import io.forgeflow.adapter.postgres.PostgresHandlerRegistry;
import io.forgeflow.adapter.postgres.PostgresJdbi;
import io.forgeflow.adapter.postgres.PostgresJobRepository;
import io.forgeflow.adapter.postgres.PostgresMigrations;
import io.forgeflow.adapter.postgres.PooledSessions;
import io.forgeflow.adapter.postgres.PostgresNodeRegistry;
import io.forgeflow.adapter.postgres.PostgresNotifier;
import io.forgeflow.adapter.postgres.PostgresRetention;
import io.forgeflow.adapter.postgres.PostgresRunEvents;
import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresSchema;
import io.forgeflow.adapter.postgres.PostgresWorkSignal;
import io.forgeflow.adapter.postgres.SessionLimits;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.executor.HandlerPayload;
import io.forgeflow.application.event.PublishedJobs;
import io.forgeflow.application.event.RunChanges;
import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.application.node.NodePresence;
import io.forgeflow.application.node.QueryNodes;
import io.forgeflow.application.retention.RetentionRole;
import io.forgeflow.application.retention.RetentionSweeper;
import io.forgeflow.application.schedule.CronUtilsSchedules;
import io.forgeflow.application.schedule.ScheduleTicker;
import io.forgeflow.application.schedule.SchedulerRole;
import io.forgeflow.application.support.PeriodicTask;
import io.forgeflow.application.worker.QueueLane;
import io.forgeflow.application.worker.Worker;
import io.forgeflow.application.worker.WorkerSettings;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * The parts of an embedded worker, assembled from a {@link ForgeFlowWorker.Builder} by plain constructor calls (the
 * same parts a node's wiring uses), started in order and stopped in the reverse order of need: scheduler first, then
 * the drain, then the registrations, then the held sessions.
 */
final class EmbeddedAssembly {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedAssembly.class);
    private static final String VERSION = versionOf();
    /** A leader's session is ended by the server after this silence (a node's FORGEFLOW_LEADER_SESSION_TIMEOUT). */
    private static final Duration LEADER_SESSION_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration MISFIRE_THRESHOLD = Duration.ofSeconds(60);
    private static final Duration RETENTION_INTERVAL = Duration.ofMinutes(1);
    private static final Duration STATISTICS_INTERVAL = Duration.ofSeconds(15);
    private static final Duration RETENTION_PAUSE = Duration.ofMillis(50);
    private static final Duration RETENTION_STATEMENT_TIMEOUT = Duration.ofMinutes(5);
    private static final SessionLimits LIMITS = new SessionLimits(Duration.ofSeconds(30), Duration.ofSeconds(5),
            Duration.ofSeconds(10), Duration.ZERO);

    private final String workerId;
    private final Set<String> handlers;
    private final Worker worker;
    private final HandlerRunExecutor executor;
    private final AdvisoryLockLeaderElection election;
    /** What {@link #stop()} runs, first to last. */
    private final Deque<Runnable> stops = new ArrayDeque<>();
    private boolean stopped;

    private EmbeddedAssembly(String workerId, Set<String> handlers, Worker worker, HandlerRunExecutor executor,
                             AdvisoryLockLeaderElection election) {
        this.workerId = workerId;
        this.handlers = handlers;
        this.worker = worker;
        this.executor = executor;
        this.election = election;
    }

    static EmbeddedAssembly start(ForgeFlowWorker.Builder b) {
        String schema = PostgresSchema.require(b.schema);
        Duration heartbeat = b.heartbeatInterval;
        RetryPolicy retryPolicy = new RetryPolicy(b.retryBase, max(Duration.ofMinutes(15), b.retryBase));
        WorkerSettings settings = new WorkerSettings(b.workerId, b.concurrency, b.pollInterval, b.lease, heartbeat,
                b.drainGrace, b.maxOutputBytes, retryPolicy);
        if (b.queues != null) {
            settings = settings.withLanes(QueueLane.parse(b.queues, b.concurrency));
        }
        boolean pooled = b.transactionPooling;
        // behind a transaction pooler the pool's connections are used as they come: a session setting would stay on
        // the pooler's server connection for its next client (and a LISTEN would hear nothing)
        ApplicationPool pool = pooled ? null : new ApplicationPool(b.dataSource, schema, LIMITS);
        DataSource statements = pooled ? b.dataSource : pool.dataSource();
        if (pooled) {
            PooledSessions.requireReady(b.dataSource, schema);
        } else if (b.migrate) {
            PostgresMigrations.migrate(statements, schema);
        }
        Jdbi jdbi = PostgresJdbi.create(statements);
        Set<String> names = Set.copyOf(new TreeSet<>(b.handlers.keySet()));
        // pooled: one connection sends the NOTIFYs (no session setting on it), nothing listens: wake-ups by polling
        PostgresNotifier notifier = pooled ? PostgresNotifier.sendingOnly(PooledSessions.borrowing(b.dataSource)) : null;
        PostgresRunEvents events = pooled ? new PostgresRunEvents(notifier)
                : new PostgresRunEvents(pool.sessions("run events"));
        PostgresWorkSignal signal;
        try {
            signal = pooled ? new PostgresWorkSignal(notifier) : new PostgresWorkSignal(pool.sessions("wake-ups"));
        } catch (RuntimeException e) {
            events.close();
            if (notifier != null) {
                notifier.close();
            }
            throw e;
        }
        PostgresRunQueue queue = new PostgresRunQueue(jdbi, null);
        PostgresNodeRegistry nodes = new PostgresNodeRegistry(jdbi, null);
        MetricsBridge bridge = new MetricsBridge(b.metrics);
        HandlerRunExecutor executor = new HandlerRunExecutor(b.handlers, b.objectMapper, b.interruptGrace, b.metrics,
                b.workerId, b.tracing);
        AdvisoryLockLeaderElection election = b.scheduler
                ? new AdvisoryLockLeaderElection(pool.leaderSessions(LEADER_SESSION_TIMEOUT)) : null;
        Worker worker = names.isEmpty() ? null : new Worker(settings, new HandlerRunQueue(queue, names),
                new ExecutorRegistry(List.of(executor), Set.of()), signal,
                new SplittableRandom(new SecureRandom().nextLong()), bridge, events, b.tracing);
        // runs enqueue() adds without a NOTIFY while the workers watch (issue 40); closed with the signal
        signal.watchSqlEnqueues(jdbi, worker != null, events::sqlEnqueuesNotStreamed);
        EmbeddedAssembly parts = new EmbeddedAssembly(b.workerId, names, worker, executor, election);
        Deque<Runnable> stops = parts.stops;
        try {
            // what enqueue() in SQL checks executor names against: java is known once any worker or node has started
            new PostgresExecutorCatalog(jdbi).record(Set.of(HandlerPayload.EXECUTOR), b.workerId);
            if (election != null) {
                ScheduleTicker ticker = new ScheduleTicker(new PublishedJobs(new PostgresJobRepository(jdbi, null),
                        new RunChanges(events, Clock.systemUTC())),
                        new CronUtilsSchedules(), election, signal, MISFIRE_THRESHOLD, n -> { });
                LeaseRescuer rescuer = new LeaseRescuer(queue, election,
                        new OutcomePolicy(retryPolicy, new SplittableRandom(new SecureRandom().nextLong())),
                        new RunChanges(events, Clock.systemUTC()), bridge::leasesRecovered,
                        new io.forgeflow.adapter.postgres.PostgresRunRepository(jdbi, null), b.tracing)
                        .holdingOffAfterBreaks(b.lease);
                io.forgeflow.application.workflow.WorkflowSweeper sweeper =
                        new io.forgeflow.application.workflow.WorkflowSweeper(
                                new io.forgeflow.adapter.postgres.PostgresWorkflows(jdbi, null), election, n -> { });
                // the leader's duties include the notices (issue 45), handed on as http jobs for the cluster's nodes
                io.forgeflow.application.notice.NoticeDispatcher notices =
                        new io.forgeflow.application.notice.NoticeDispatcher(
                                new io.forgeflow.adapter.postgres.PostgresNoticeOutbox(jdbi),
                                new io.forgeflow.application.job.SubmitJob(new PostgresJobRepository(jdbi, null),
                                        new ExecutorRegistry(List.of(new NoticeHttpTarget()), Set.of()),
                                        new CronUtilsSchedules(), signal,
                                        new io.forgeflow.adapter.postgres.PostgresClock(jdbi, Clock.systemUTC()),
                                        b.tracing, null),
                                election, b.notifySecret);
                SchedulerRole scheduler = new SchedulerRole(ticker, rescuer, election, b.schedulerTick, () -> { },
                        () -> {
                            try {
                                sweeper.run();
                            } finally {
                                notices.run();
                            }
                        });
                RetentionRole retention = new RetentionRole(new RetentionSweeper(new PostgresRetention(jdbi, null,
                        RETENTION_STATEMENT_TIMEOUT), nodes, election, b.retention,
                        Duration.ofSeconds(QueryNodes.keepWindowSeconds(heartbeat)), RETENTION_PAUSE,
                        RetentionSweeper.BATCH, b.historyAfter, (table, n) -> { }),
                        RETENTION_INTERVAL, STATISTICS_INTERVAL);
                scheduler.start();
                stops.add(() -> {
                    scheduler.stop();
                    election.close();
                });
                retention.start();
                stops.addFirst(retention::stop);
            }
            if (worker != null) {
                HandlerAnnouncer announcer = new HandlerAnnouncer(new PostgresHandlerRegistry(jdbi, null), b.workerId,
                        names, heartbeat);
                announcer.runOnce();
                PeriodicTask announcing = new PeriodicTask("ff-handlers", heartbeat, announcer::runOnce);
                announcing.start();
                worker.start();
                stops.add(worker::stop);
                stops.add(() -> {
                    announcing.stop();
                    announcer.withdraw();
                });
            }
            Set<String> roles = new TreeSet<>(Set.of("embedded"));
            if (worker != null) {
                roles.add("worker");
            }
            if (election != null) {
                roles.add("scheduler");
            }
            Instant startedAt = Instant.now();
            NodePresence presence = new NodePresence(nodes, () -> pooled
                    ? new NodeInfo(b.workerId, roles, VERSION, startedAt, false, null, null, null, "transaction",
                    "polling", null, null, null)
                    : new NodeInfo(b.workerId, roles, VERSION, startedAt, election != null && election.isLeader()),
                    heartbeat);
            presence.start();
            stops.add(presence::stop);
        } catch (RuntimeException e) {
            stops.add(executor::close);
            stops.add(signal::close);
            stops.add(events::close);
            if (notifier != null) {
                stops.add(notifier::close);
            }
            parts.stop();
            throw e;
        }
        stops.add(executor::close);
        stops.add(signal::close);
        stops.add(events::close);
        if (notifier != null) {
            stops.add(notifier::close); // after the events: their last changes are sent on it
        }
        LOG.info("embedded worker {} (ForgeFlow {}) started: handlers {}, {} slots{}", b.workerId, VERSION, names,
                settings.concurrency(), election == null ? "" : ", scheduler role");
        return parts;
    }

    String workerId() {
        return workerId;
    }

    Set<String> handlers() {
        return handlers;
    }

    boolean isLeader() {
        return election != null && election.isLeader();
    }

    int busySlots() {
        return worker == null ? 0 : worker.busySlots();
    }

    int handlersLeftBehind() {
        return executor.leftBehind();
    }

    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        for (Runnable step : stops) {
            try {
                step.run();
            } catch (RuntimeException e) {
                LOG.warn("embedded worker {}: a step of stopping failed: {}", workerId, e.toString());
            }
        }
        LOG.info("embedded worker {} stopped", workerId);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static String versionOf() {
        String v = EmbeddedAssembly.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }
}
