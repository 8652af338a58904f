package io.forgeflow.adapter.rest;

import io.forgeflow.domain.port.TenantDirectory;

import java.util.List;
import java.util.Set;

/**
 * What a request that acts in one tenant (README "Tenants") may reach, as a table. It fails closed: a route the table
 * does not name is cluster-wide, and a tenant-bound token is refused there, so a route added later leaks nothing
 * before anyone thinks about tenants.
 *
 * <pre>
 * POST /api/jobs, GET /api/jobs, GET /api/runs, POST|GET /api/batches   the request's tenant (submissions go to it,
 *                                                                       lists show it alone)
 * /api/jobs/{id}, /api/jobs/{id}/...                                    job {id} must be the request's tenant's
 * /api/runs/{id}, /api/runs/{id}/...                                    run {id}
 * /api/batches/{id}, /api/batches/{id}/...                              batch {id}
 * GET /api/schedules/preview                                            (with job_id: that job)
 * GET /api/stats                                                        the request's tenant's runs
 * GET /api/events                                                       the request's tenant's events
 * /api/queues, /api/queues/{name}/...                                   the request's tenant's queues (a queue's
 *                                                                       settings and counts are per tenant)
 * /healthz, /readyz, /api/openapi.json                                  open: they hold no tenant's data
 * anything else (nodes, tenants)                                       cluster-wide (GET and PUT /api/tenants/...:
 *                                                                       weights and limits span every tenant)
 * </pre>
 */
final class TenantRoutes {
    private static final Set<String> TENANT_COLLECTIONS = Set.of("jobs", "runs", "batches");

    /** A route as the table sees it: whether a tenant's request may use it, and the object its path names. */
    record Route(boolean tenantScoped, TenantDirectory.Kind kind, String id) {
        static final Route CLUSTER = new Route(false, null, null);
        static final Route SCOPED = new Route(true, null, null);
    }

    private TenantRoutes() {
    }

    /** The route of {@code method path} ({@code jobId}: the request's {@code job_id} query parameter, or null). */
    static Route of(String method, String path, String jobId) {
        List<String> s = RouteScopes.segments(path);
        if (s.size() == 1 && RouteScopes.OPEN.contains(s.get(0)) || s.equals(RouteScopes.OPEN_API)) {
            return Route.SCOPED;
        }
        if (s.size() < 2 || !s.get(0).equals("api")) {
            return Route.CLUSTER;
        }
        String collection = s.get(1);
        if (collection.equals("schedules") && s.size() == 3 && s.get(2).equals("preview")) {
            return jobId == null ? Route.SCOPED : new Route(true, TenantDirectory.Kind.JOB, jobId);
        }
        if ((collection.equals("stats") || collection.equals("events")) && s.size() == 2) {
            return Route.SCOPED;
        }
        if (collection.equals("queues")) {
            return Route.SCOPED;
        }
        if (!TENANT_COLLECTIONS.contains(collection)) {
            return Route.CLUSTER;
        }
        if (s.size() == 2) {
            return Route.SCOPED;
        }
        TenantDirectory.Kind kind = switch (collection) {
            case "jobs" -> TenantDirectory.Kind.JOB;
            case "runs" -> TenantDirectory.Kind.RUN;
            default -> TenantDirectory.Kind.BATCH;
        };
        return new Route(true, kind, s.get(2));
    }
}
