package io.forgeflow.adapter.rest;

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
import jakarta.servlet.Filter;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the server registers to serve the REST API. With Dropwizard, in {@code Application.run}:
 *
 * <pre>{@code
 * // config: server.registerDefaultExceptionMappers: false (these mappers are the only ones)
 * RestModule.resources(submitJob, queryJobs, pauseJob, resumeJob, cancelJob, triggerJob, updateJob, deleteJob,
 *         queryRuns, cancelRun, requeueRun, queryNodes, readiness).forEach(environment.jersey()::register);
 * RestModule.providers(DatabaseOutages::isOutage).forEach(environment.jersey()::register);
 * // in this order, and during run(): Dropwizard adds its own filters later, when it builds the server
 * // (with tokens, authenticationGate(tokens) first, right after the browser defence)
 * RestModule.filters(limits).forEach((name, filter) -> environment.servlets().addFilter(name, filter)
 *         .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*"));
 * PerAddressConnectionLimit cap = RestModule.connectionLimit(limits); // applyTo(server) in lifeCycleStarting
 * // errors Jetty answers before any filter runs (malformed URIs, oversized headers)
 * environment.getApplicationContext().setErrorHandler(new JsonErrorHandler());
 * environment.lifecycle().addEventListener(new LifeCycle.Listener() {
 *     public void lifeCycleStarting(LifeCycle event) {
 *         if (event instanceof Server) ((Server) event).setErrorHandler(new JsonErrorHandler());
 *     }
 * });
 * }</pre>
 */
public final class RestModule {
    private RestModule() {
    }

    /**
     * The JAX-RS resources: jobs (with edit and delete), runs, stats, nodes, the health routes, and the OpenAPI
     * document ({@code GET /api/openapi.json}).
     */
    public static List<Object> resources(SubmitJob submitJob, QueryJobs queryJobs, PauseJob pauseJob,
                                         ResumeJob resumeJob, CancelJob cancelJob, TriggerJob triggerJob,
                                         UpdateJob updateJob, DeleteJob deleteJob,
                                         QueryRuns queryRuns, CancelRun cancelRun, RequeueRun requeueRun,
                                         QueryNodes queryNodes, ReadinessCheck readiness) {
        return resources(submitJob, queryJobs, pauseJob, resumeJob, cancelJob, triggerJob, updateJob, deleteJob,
                queryRuns, cancelRun, requeueRun, queryNodes, readiness, null);
    }

    /** The resources, with the jobs' places in workflows ({@code workflows}: null for none). */
    public static List<Object> resources(SubmitJob submitJob, QueryJobs queryJobs, PauseJob pauseJob,
                                         ResumeJob resumeJob, CancelJob cancelJob, TriggerJob triggerJob,
                                         UpdateJob updateJob, DeleteJob deleteJob,
                                         QueryRuns queryRuns, CancelRun cancelRun, RequeueRun requeueRun,
                                         QueryNodes queryNodes, ReadinessCheck readiness,
                                         io.forgeflow.application.workflow.QueryWorkflows workflows) {
        return List.of(
                new JobResource(submitJob, queryJobs, pauseJob, resumeJob, cancelJob, triggerJob, updateJob, deleteJob,
                        workflows),
                new RunResource(queryRuns, cancelRun, requeueRun),
                new StatsResource(queryRuns),
                new NodeResource(queryNodes),
                new HealthResource(readiness),
                new OpenApiResource());
    }

    /**
     * The filter that decides the tenant each request acts in and keeps it there ({@link TenantFilter}, README
     * "Tenants"): register it with {@code environment.jersey()} on api nodes, with or without tokens.
     */
    public static Object tenants(io.forgeflow.domain.port.TenantDirectory directory) {
        return new TenantFilter(directory);
    }

    /** {@code /api/batches}: batches of jobs (API.md, "Workflows"). */
    public static Object batches(io.forgeflow.application.workflow.SubmitBatch batches) {
        return new BatchResource(batches);
    }

    /** {@code /api/schedules/preview}: the next fire times of a cron expression. */
    public static Object schedules(PreviewSchedule previewSchedule) {
        return new ScheduleResource(previewSchedule);
    }

    /** {@code /api/schedules/preview}, also of a job's own schedule ({@code job_id}). */
    public static Object schedules(PreviewSchedule previewSchedule, QueryJobs queryJobs) {
        return new ScheduleResource(previewSchedule, queryJobs::get);
    }

    /** {@code /api/jobs/{id}/backfill} and {@code /api/jobs/{id}/backfill/{backfill_id}}. */
    public static Object backfills(io.forgeflow.application.schedule.BackfillJob backfillJob) {
        return new BackfillResource(backfillJob);
    }

    /** {@code /api/queues}: queues, their limits, pause and resume. */
    public static Object queues(QueueControls controls) {
        return new QueueResource(controls);
    }

    /** {@code /api/tenants}: tenants, their weights in the claim's fair share and their cluster-wide limits. */
    public static Object tenantSettings(io.forgeflow.application.tenant.TenantControls controls) {
        return new TenantResource(controls);
    }

    /**
     * {@code GET /api/events} (Server-Sent Events of run changes) over these streams: register it with
     * {@code environment.jersey()} on api nodes, and close the streams when the server starts stopping.
     */
    public static Object events(EventStreams streams) {
        return new EventResource(streams);
    }

    /**
     * The exception mappers: the domain's exceptions, this adapter's refusals, Jackson's exceptions, Jersey's
     * own (404, 405, 415 ...), and a catch-all that answers 500 with a logged error id.
     */
    public static List<Object> providers() {
        return ExceptionMappers.all();
    }

    /**
     * The exception mappers, with {@code databaseAway} telling a failure because the database is away (by its cause
     * chain: the server gives adapters-postgres's {@code DatabaseOutages::isOutage}): those answer 503
     * {@code unavailable} with {@code Retry-After}, never 500.
     */
    public static List<Object> providers(java.util.function.Predicate<Throwable> databaseAway) {
        return ExceptionMappers.all(databaseAway);
    }

    /**
     * The servlet filters, by name, in the order they must run (in front of Jersey, for every request):
     * JSON error pages, the body limit, then the content-type rules.
     */
    public static Map<String, Filter> filters() {
        return filters(SlowClientLimits.DEFAULTS);
    }

    /** The servlet filters, with this pace for request bodies ({@link BodyLimitFilter}). */
    public static Map<String, Filter> filters(SlowClientLimits limits) {
        Map<String, Filter> filters = new LinkedHashMap<>();
        filters.put("forgeflow-json-errors", new JsonErrorFilter());
        filters.put("forgeflow-body-limit", new BodyLimitFilter(limits));
        filters.put("forgeflow-json-content-type", new JsonContentTypeFilter());
        return filters;
    }

    /**
     * The cap on connections per client address: call {@link PerAddressConnectionLimit#applyTo} on the Jetty
     * {@code Server} while it starts (a lifecycle listener's {@code lifeCycleStarting}).
     */
    public static PerAddressConnectionLimit connectionLimit(SlowClientLimits limits) {
        return new PerAddressConnectionLimit(limits.maxConnectionsPerAddress());
    }

    /**
     * Bearer-token authentication with scopes ({@link BearerTokenAuthFilter}) for every route but {@code /healthz},
     * {@code /readyz} and reads of {@code /api/openapi.json}: register each with {@code environment.jersey()}. Empty
     * when no token is configured: the API is then open (the server allows that on loopback only).
     */
    public static List<Object> authentication(ApiTokens tokens) {
        return tokens.isEmpty() ? List.of() : List.of(BearerTokenAuthFilter.of(tokens));
    }

    /**
     * The servlet filter that answers the 401s of requests that may carry a body before anything reads it
     * ({@link AuthenticationGate}): register it right after the browser defence, on {@code /*} of the API port. Null
     * when no token is configured.
     */
    public static Filter authenticationGate(ApiTokens tokens) {
        return tokens.isEmpty() ? null : new AuthenticationGate(tokens);
    }

    /**
     * The Origin and Host rules of {@link BrowserDefence}, as a servlet filter: register it first on {@code /*}, in
     * front of every other filter, on the API port and on the admin port (each with its own defence).
     */
    public static Filter browserDefence(BrowserDefence defence) {
        return new BrowserDefenceFilter(defence);
    }

    /**
     * The filter that puts {@code /metrics} behind {@code token} (plain or {@code sha256:<hex>}); map it to
     * {@code /metrics} only.
     *
     * @throws IllegalArgumentException naming FORGEFLOW_METRICS_TOKEN when the token is malformed
     */
    public static Filter metricsToken(String token) {
        return new MetricsTokenFilter(token);
    }
}
