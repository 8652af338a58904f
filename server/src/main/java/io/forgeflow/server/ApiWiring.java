package io.forgeflow.server;

import io.forgeflow.application.workflow.QueryWorkflows;
import io.forgeflow.application.workflow.SubmitBatch;
import io.forgeflow.domain.port.Workflows;

import io.dropwizard.core.setup.Environment;
import io.forgeflow.adapter.postgres.PostgresHealth;
import io.forgeflow.adapter.rest.HealthResource;
import io.forgeflow.adapter.rest.JsonErrorHandler;
import io.forgeflow.adapter.rest.ReadinessCheck;
import io.forgeflow.adapter.rest.RestModule;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.job.CancelJob;
import io.forgeflow.application.job.DeleteJob;
import io.forgeflow.application.job.UpdateJob;
import io.forgeflow.application.job.PauseJob;
import io.forgeflow.application.job.QueryJobs;
import io.forgeflow.application.job.ResumeJob;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.job.TriggerJob;
import io.forgeflow.application.node.QueryNodes;
import io.forgeflow.application.queue.QueueControls;
import io.forgeflow.application.run.CancelRun;
import io.forgeflow.application.run.QueryRuns;
import io.forgeflow.application.run.RequeueRun;
import io.forgeflow.application.schedule.PreviewSchedule;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.WorkSignal;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/** The HTTP surface: the REST API on api nodes, health and readiness everywhere, errors always in JSON. */
final class ApiWiring {
    private final Environment environment;
    private final JobRepository jobs;
    private final RunRepository runs;
    private final NodeRegistry nodes;
    private final ExecutorRegistry executors;
    private final CronSchedules cron;
    private final WorkSignal signal;
    private final Clock clock;
    private final PostgresHealth health;
    private final Duration heartbeatInterval;
    private final boolean apiRole;
    private final NodeSecurity security;
    private final QueueRepository queues;
    private final HandlerWaits waits;
    private Tracing tracing = Tracing.NONE;
    private io.forgeflow.adapter.rest.SlowClientLimits slowClients = io.forgeflow.adapter.rest.SlowClientLimits.DEFAULTS;
    private final ListBudget listBudget;
    private Workflows workflows;
    private java.util.function.IntConsumer batchCreated = n -> { };
    private io.forgeflow.domain.port.TenantDirectory tenants;
    private io.forgeflow.domain.port.TenantRepository tenantSettings;

    ApiWiring(Environment environment, JobRepository jobs, RunRepository runs, NodeRegistry nodes,
              ExecutorRegistry executors, CronSchedules cron, WorkSignal signal, Clock clock, PostgresHealth health,
              Duration heartbeatInterval, boolean apiRole, NodeSecurity security, QueueRepository queues,
              HandlerWaits waits, ListBudget listBudget) {
        this.environment = environment;
        this.jobs = jobs;
        this.runs = runs;
        this.nodes = nodes;
        this.executors = executors;
        this.cron = cron;
        this.signal = signal;
        this.clock = clock;
        this.health = health;
        this.heartbeatInterval = heartbeatInterval;
        this.apiRole = apiRole;
        this.security = security;
        this.queues = queues;
        this.waits = waits;
        this.listBudget = listBudget;
    }

    /** Who owns each job, run and batch (issue 42): the API keeps a tenant's requests inside it. */
    ApiWiring tenants(io.forgeflow.domain.port.TenantDirectory directory) {
        this.tenants = directory;
        return this;
    }

    /** Tenants' weights and limits (issue 42, part two). */
    ApiWiring tenantSettings(io.forgeflow.domain.port.TenantRepository repository) {
        this.tenantSettings = repository;
        return this;
    }

    io.forgeflow.application.tenant.TenantControls tenantControls() {
        return new io.forgeflow.application.tenant.TenantControls(
                java.util.Objects.requireNonNull(tenantSettings, "tenantSettings"), signal);
    }

    /** Workflows (issue 32): jobs with parents and batches. */
    ApiWiring workflows(Workflows newWorkflows, java.util.function.IntConsumer batchCreated) {
        this.workflows = newWorkflows;
        this.batchCreated = batchCreated;
        return this;
    }

    /** What a slow client may hold (issue 39): connections per address, the pace of bodies. */
    ApiWiring slowClients(io.forgeflow.adapter.rest.SlowClientLimits limits) {
        this.slowClients = limits;
        return this;
    }

    /** The notify of jobs submitted without one, alone or in a batch (FORGEFLOW_NOTIFY_URL, issue 45); null: none. */
    ApiWiring notifyDefault(io.forgeflow.domain.job.Notify fallback) {
        this.notifyDefault = fallback;
        return this;
    }

    private io.forgeflow.domain.job.Notify notifyDefault;
    private java.util.function.Consumer<String> debounced = edge -> { };

    /** Counts the submissions a debounce joined to a run, by edge (issue 44). */
    ApiWiring debounced(java.util.function.Consumer<String> counter) {
        this.debounced = counter;
        return this;
    }

    /**
     * What every job submitted over either API passes, alone or in a batch (the one place for the default notify and
     * the reserved idempotency keys).
     */
    private io.forgeflow.application.job.JobAdmission admission() {
        return io.forgeflow.application.job.JobAdmission.of(executors).withNotifyDefault(notifyDefault);
    }

    /** The submission use case of both APIs. */
    private SubmitJob submitJob() {
        return new SubmitJob(jobs, admission(), cron, signal, clock, tracing, workflows).withDebounceCounter(debounced);
    }

    /** Spans of submissions and triggers, and of runs an operator ends (issue 31). */
    ApiWiring tracing(Tracing newTracing) {
        this.tracing = newTracing;
        return this;
    }

    /** The use cases the gRPC API calls (issue 41): the same kinds, over the same ports, as REST's. */
    io.forgeflow.adapter.grpc.UseCases grpcUseCases() {
        return new io.forgeflow.adapter.grpc.UseCases(submitJob(),
                workflows == null ? null : new SubmitBatch(workflows, admission(), signal, clock, batchCreated),
                new QueryJobs(jobs, waits, listBudget), new UpdateJob(jobs, executors, cron, signal, clock),
                new PauseJob(jobs, tracing), new ResumeJob(jobs, runs, cron, signal, clock), new CancelJob(jobs, tracing),
                new TriggerJob(jobs, runs, signal, clock, tracing), new DeleteJob(jobs, tracing),
                new QueryRuns(runs, waits, listBudget), new CancelRun(runs, tracing),
                new RequeueRun(runs, jobs, signal, workflows), new QueueControls(queues, signal),
                new PreviewSchedule(cron, clock), new QueryNodes(nodes, heartbeatInterval),
                new io.forgeflow.application.schedule.BackfillJob(jobs, cron, signal, clock),
                java.util.Objects.requireNonNull(tenants, "tenants"), tenantControls());
    }

    void register() {
        ReadinessCheck readiness = new ReadinessCheck() {
            @Override
            public Optional<String> problem() {
                return health.probe().reason(); // short: the database's own words only on the admin port
            }

            @Override
            public List<String> warnings() {
                return security.readinessWarnings();
            }
        };
        if (apiRole) {
            environment.jersey().register(RestModule.tenants(java.util.Objects.requireNonNull(tenants, "tenants")));
            RestModule.resources(submitJob(), new QueryJobs(jobs, waits, listBudget), new PauseJob(jobs, tracing),
                    new ResumeJob(jobs, runs, cron, signal, clock), new CancelJob(jobs, tracing), new TriggerJob(jobs, runs, signal, clock, tracing),
                    new UpdateJob(jobs, executors, cron, signal, clock), new DeleteJob(jobs, tracing),
                    new QueryRuns(runs, waits, listBudget), new CancelRun(runs, tracing), new RequeueRun(runs, jobs, signal, workflows),
                    new QueryNodes(nodes, heartbeatInterval), readiness,
                    workflows == null ? null : new QueryWorkflows(workflows)).forEach(environment.jersey()::register);
            if (workflows != null) {
                environment.jersey().register(RestModule.batches(new SubmitBatch(workflows, admission(), signal, clock,
                        batchCreated)));
            }
            environment.jersey().register(RestModule.queues(new QueueControls(queues, signal)));
            environment.jersey().register(RestModule.tenantSettings(tenantControls()));
            environment.jersey().register(RestModule.schedules(new PreviewSchedule(cron, clock),
                    new QueryJobs(jobs, waits, listBudget)));
            environment.jersey().register(RestModule.backfills(
                    new io.forgeflow.application.schedule.BackfillJob(jobs, cron, signal, clock)));
            DashboardServlet.register(environment); // the web dashboard at /, beside Jersey
        } else {
            environment.jersey().register(new HealthResource(readiness));
        }
        environment.admin().addServlet("readyz", new ReadinessDetailsServlet(health, security::readinessWarnings,
                environment.getObjectMapper())).addMapping("/readyz");
        RestModule.providers(io.forgeflow.adapter.postgres.DatabaseOutages::isOutage).forEach(environment.jersey()::register);
        security.register(environment); // bearer tokens on every route but the probes; the /metrics token
        RestModule.filters(slowClients).forEach((name, filter) -> environment.servlets().addFilter(name, filter)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*"));
        io.forgeflow.adapter.rest.PerAddressConnectionLimit connectionLimit = RestModule.connectionLimit(slowClients);
        environment.getApplicationContext().setErrorHandler(new JsonErrorHandler());
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    server.setErrorHandler(new JsonErrorHandler());
                    connectionLimit.applyTo(server);
                }
            }
        });
    }
}
