package io.forgeflow.adapter.rest;

import com.codahale.metrics.health.HealthCheck;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.forgeflow.application.event.RunEventFeed;
import io.forgeflow.application.executor.ExecutorRegistry;
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
import io.forgeflow.application.schedule.CronUtilsSchedules;
import io.forgeflow.application.schedule.PreviewSchedule;
import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.FakeExecutor;
import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A server wired like the real one, but over the in-memory fakes: the real use cases, the adapter's resources,
 * mappers and filters, registered the way {@link RestModule} says.
 */
public class RestTestApplication extends Application<RestTestConfiguration> {
    final MutableClock clock = MutableClock.at("2026-03-01T12:00:00Z");
    final InMemoryStore store = new InMemoryStore(clock);
    final CountingWorkSignal signal = new CountingWorkSignal();
    final io.forgeflow.application.testkit.InMemoryWorkflows workflows =
            new io.forgeflow.application.testkit.InMemoryWorkflows(store);
    /** What /readyz reports; null means ready. */
    final AtomicReference<String> notReadyBecause = new AtomicReference<>();
    /** While set, every resource method fails as the database adapter does when the database is away. */
    final java.util.concurrent.atomic.AtomicBoolean databaseAway = new java.util.concurrent.atomic.AtomicBoolean();
    /** The warnings a ready /readyz shows. */
    final AtomicReference<List<String>> readyWarnings = new AtomicReference<>(List.of());
    /** The cluster's run changes as the test pushes them; {@code /api/events} streams them. */
    final PushedRunEvents runEvents = new PushedRunEvents();
    volatile EventStreams eventStreams;

    @Override
    public void run(RestTestConfiguration configuration, Environment environment) {
        ExecutorRegistry executors = new ExecutorRegistry(List.of(new FakeExecutor("shell"), new FakeExecutor("http")), null);
        CronUtilsSchedules cron = new CronUtilsSchedules();
        RestModule.resources(
                new SubmitJob(store.jobs(), executors, cron, signal, clock,
                        io.forgeflow.application.trace.Tracing.NONE, workflows),
                new QueryJobs(store.jobs()),
                new PauseJob(store.jobs()),
                new ResumeJob(store.jobs(), store.runs(), cron, signal, clock),
                new CancelJob(store.jobs()),
                new TriggerJob(store.jobs(), store.runs(), signal, clock),
                new UpdateJob(store.jobs(), executors, cron, signal, clock),
                new DeleteJob(store.jobs()),
                new QueryRuns(store.runs()),
                new CancelRun(store.runs()),
                new RequeueRun(store.runs(), store.jobs(), signal),
                new QueryNodes(store.nodes(), Duration.ofSeconds(10)),
                new ReadinessCheck() {
                    @Override
                    public Optional<String> problem() {
                        return Optional.ofNullable(notReadyBecause.get());
                    }

                    @Override
                    public List<String> warnings() {
                        return readyWarnings.get();
                    }
                }, new io.forgeflow.application.workflow.QueryWorkflows(workflows)).forEach(environment.jersey()::register);
        environment.jersey().register(RestModule.batches(new io.forgeflow.application.workflow.SubmitBatch(workflows,
                io.forgeflow.application.job.JobAdmission.of(executors), signal, clock, n -> { })));
        environment.jersey().register(RestModule.queues(new QueueControls(store.queues(), signal)));
        environment.jersey().register(RestModule.tenantSettings(
                new io.forgeflow.application.tenant.TenantControls(store.tenants(), signal)));
        environment.jersey().register(RestModule.schedules(new PreviewSchedule(cron, clock),
                new QueryJobs(store.jobs())));
        environment.jersey().register(RestModule.backfills(
                new io.forgeflow.application.schedule.BackfillJob(store.jobs(), cron, signal, clock)));
        RunEventFeed feed = new RunEventFeed(runEvents, RunEventFeed.DEFAULT_CAPACITY);
        feed.start();
        eventStreams = new EventStreams(feed, Duration.ofMillis(configuration.eventKeepAliveMillis),
                configuration.eventStreams, configuration.eventQueueFrames);
        environment.jersey().register(RestModule.events(eventStreams));
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle event) {
                if (event instanceof Server) {
                    eventStreams.close();
                    feed.close();
                }
            }
        });
        RestModule.authentication(ApiTokens.parse(configuration.apiTokens)).forEach(environment.jersey()::register);
        // first of all filters, as the server registers it: a tokenless test server restricts hosts
        environment.servlets().addFilter("forgeflow-browser-defence", RestModule.browserDefence(BrowserDefence.of(
                        configuration.allowedOrigins, configuration.allowedHosts, !configuration.apiTokens.isEmpty())))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        jakarta.servlet.Filter gate = RestModule.authenticationGate(ApiTokens.parse(configuration.apiTokens));
        if (gate != null) {
            environment.servlets().addFilter("forgeflow-authentication-gate", gate)
                    .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        }
        environment.getApplicationContext().addServlet(new ServletHolder(new FakeMetrics()), "/metrics");
        if (configuration.metricsToken != null) {
            environment.servlets().addFilter("forgeflow-metrics-token", RestModule.metricsToken(configuration.metricsToken))
                    .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/metrics");
        }
        environment.jersey().register(new DatabaseAwayFilter(databaseAway));
        RestModule.providers(DriverOutage::in).forEach(environment.jersey()::register);
        SlowClientLimits slowClients = new SlowClientLimits(configuration.maxConnectionsPerAddress,
                configuration.minRequestBytesPerSecond, Duration.ofMillis(configuration.requestBodyGraceMillis));
        RestModule.filters(slowClients).forEach((name, filter) -> environment.servlets().addFilter(name, filter)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*"));
        PerAddressConnectionLimit connectionLimit = RestModule.connectionLimit(slowClients);
        environment.getApplicationContext().setErrorHandler(new JsonErrorHandler());
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server) {
                    ((Server) event).setErrorHandler(new JsonErrorHandler());
                    connectionLimit.applyTo((Server) event);
                    for (org.eclipse.jetty.server.Connector c : ((Server) event).getConnectors()) {
                        if (configuration.sendBufferBytes > 0 && c instanceof org.eclipse.jetty.server.ServerConnector) {
                            ((org.eclipse.jetty.server.ServerConnector) c)
                                    .setAcceptedSendBufferSize(configuration.sendBufferBytes);
                        }
                    }
                }
            }
        });
        environment.jersey().register(new Boom());
        environment.jersey().register(new Bind());
        environment.healthChecks().register("fakes", new HealthCheck() {
            @Override
            protected Result check() {
                return Result.healthy();
            }
        });
    }

    /** Stands in for the Prometheus servlet the server maps to /metrics. */
    static final class FakeMetrics extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write("forgeflow_test_metric 1\n");
        }
    }

    /** A route whose body Dropwizard's Jackson provider binds, to see its exceptions answered by the adapter. */
    @Path("/test/bind")
    public static final class Bind {
        public record Probe(@JsonProperty("count") int count, @JsonProperty("when") Instant when) {
        }

        @POST
        @Consumes(MediaType.APPLICATION_JSON)
        @Produces(MediaType.APPLICATION_JSON)
        public Probe bind(Probe probe) {
            return probe;
        }
    }

    /** A route that fails unexpectedly, to see the 500 answer. */
    @Path("/test/boom")
    public static final class Boom {
        @GET
        public String boom() {
            throw new IllegalStateException("secret internal detail at io.forgeflow.Secret.method(Secret.java:42)");
        }
    }

    /** Stands in for the driver's connection failure; the server's classifier (adapters-postgres) finds the real one. */
    static final class DriverOutage extends RuntimeException {
        DriverOutage() {
            super("Connection to 127.0.0.1:5432 refused");
        }

        static boolean in(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof DriverOutage) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Fails every matched request, after authentication, as a store whose database is away would. */
    @jakarta.annotation.Priority(jakarta.ws.rs.Priorities.USER)
    static final class DatabaseAwayFilter implements jakarta.ws.rs.container.ContainerRequestFilter {
        private final java.util.concurrent.atomic.AtomicBoolean away;

        DatabaseAwayFilter(java.util.concurrent.atomic.AtomicBoolean away) {
            this.away = away;
        }

        @Override
        public void filter(jakarta.ws.rs.container.ContainerRequestContext request) {
            if (away.get()) {
                throw new IllegalStateException("the store failed", new DriverOutage());
            }
        }
    }
}
