package io.forgeflow.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.embedded.ForgeFlowWorker;
import io.forgeflow.embedded.JobHandler;
import io.forgeflow.embedded.WorkerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import javax.sql.DataSource;
import java.util.Map;

/**
 * Starts ForgeFlow's part of the application once every bean is ready: reconciles the {@link Recurring} jobs, then
 * starts the embedded worker with the {@link ForgeFlowHandler} methods (and the scheduler role when asked for). Stops
 * early at shutdown (before the web server and the {@code DataSource}): running handlers get
 * {@code forgeflow.drain-grace} to finish, then their runs are released for another worker.
 */
public class ForgeFlowLifecycle implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(ForgeFlowLifecycle.class);
    /** After the web server has started (DEFAULT_PHASE - 2048), and stopped before it. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private final DataSource dataSource;
    private final ForgeFlowProperties properties;
    private final ForgeFlowHandlers handlers;
    private final RecurringReconciler reconciler;
    private final ObjectMapper mapper;
    private final WorkerMetrics metrics;
    private final HandlerDecorator decorator;
    private volatile ForgeFlowWorker worker;
    private volatile boolean running;
    /** Keeps the JVM of an application without a web server alive while the worker runs (its threads are daemons). */
    private Thread keepAlive;

    public ForgeFlowLifecycle(DataSource dataSource, ForgeFlowProperties properties, ForgeFlowHandlers handlers,
                              RecurringReconciler reconciler, ObjectMapper mapper, WorkerMetrics metrics) {
        this(dataSource, properties, handlers, reconciler, mapper, metrics, null);
    }

    /** @param decorator wraps each handler before the worker gets it (null: none) */
    public ForgeFlowLifecycle(DataSource dataSource, ForgeFlowProperties properties, ForgeFlowHandlers handlers,
                              RecurringReconciler reconciler, ObjectMapper mapper, WorkerMetrics metrics,
                              HandlerDecorator decorator) {
        this.dataSource = dataSource;
        this.properties = properties;
        this.handlers = handlers;
        this.reconciler = reconciler;
        this.mapper = mapper;
        this.metrics = metrics == null ? WorkerMetrics.NONE : metrics;
        this.decorator = decorator == null ? (name, handler) -> handler : decorator;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        if (properties.isRecurring()) {
            reconciler.reconcile(handlers.recurring());
        }
        Map<String, JobHandler> found = handlers.handlers();
        if (properties.isWorker() && (!found.isEmpty() || properties.isScheduler())) {
            ForgeFlowWorker.Builder b = ForgeFlowWorker.builder().dataSource(dataSource).schema(properties.getSchema())
                    .migrate(false).concurrency(properties.getConcurrency()).scheduler(properties.isScheduler())
                    .lease(properties.getLease()).heartbeatInterval(properties.getHeartbeat())
                    .pollInterval(properties.getPollInterval()).drainGrace(properties.getDrainGrace())
                    .retention(properties.getRetention()).historyAfter(properties.getHistoryAfter()).notifySecret(properties.getNotifySecret())
                    .retryBase(properties.getRetryBase()).objectMapper(mapper)
                    .metrics(metrics);
            if (properties.getWorkerId() != null) {
                b.workerId(properties.getWorkerId());
            }
            if (properties.getQueues() != null) {
                b.queues(properties.getQueues());
            }
            found.forEach((name, handler) -> b.handler(name, decorator.decorate(name, handler)));
            worker = b.start();
            if (properties.isKeepAlive()) {
                keepAlive = new Thread(() -> {
                    synchronized (this) {
                        while (running) {
                            try {
                                wait();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                return;
                            }
                        }
                    }
                }, "forgeflow-keep-alive");
                keepAlive.setDaemon(false);
            }
        } else {
            LOG.info("ForgeFlow: no embedded worker (forgeflow.worker={}, {} handlers, forgeflow.scheduler={})",
                    properties.isWorker(), found.size(), properties.isScheduler());
        }
        running = true;
        if (keepAlive != null) {
            keepAlive.start();
        }
    }

    @Override
    public synchronized void stop() {
        ForgeFlowWorker w = worker;
        worker = null;
        running = false;
        keepAlive = null;
        notifyAll();
        if (w != null) {
            w.close();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The embedded worker while it runs, else null. */
    public ForgeFlowWorker worker() {
        return worker;
    }
}
