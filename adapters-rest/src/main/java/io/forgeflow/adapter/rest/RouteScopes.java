package io.forgeflow.adapter.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which scope each request needs, as a table. It fails closed: what the table does not name needs {@code admin},
 * so a route added later is protected before anyone thinks about it.
 *
 * <pre>
 * GET or HEAD, any path                                read
 * POST /api/jobs                                       submit
 * POST /api/batches                                    submit (and each job's executor, for submit:executor)
 * PATCH /api/jobs/{id}                                 submit (and the job's executor, for submit:executor)
 * DELETE /api/jobs/{id}                                operate
 * POST /api/jobs/{id}/pause|resume|cancel|trigger|backfill operate
 * POST /api/runs/{id}/requeue|cancel                   operate
 * PUT /api/queues/{name}, POST .../pause|resume        operate
 * PUT /api/tenants/{name}                              admin (weights and limits of every tenant)
 * anything else (PUT, DELETE, OPTIONS, unknown POSTs)  admin
 * /healthz and /readyz, any method                     open (no token)
 * GET or HEAD /api/openapi.json                        open (the API's description holds no data)
 * </pre>
 *
 * {@code /metrics} is a servlet, outside Jersey: {@link MetricsTokenFilter} guards it when a metrics token is set.
 */
public final class RouteScopes {
    /** The routes that stay open: probes must work without a token. */
    static final Set<String> OPEN = Set.of("healthz", "readyz");
    /** The OpenAPI document ({@link OpenApiResource}): public, so clients can be generated before holding a token. */
    static final List<String> OPEN_API = List.of("api", "openapi.json");
    private static final Set<String> JOB_CONTROLS = Set.of("pause", "resume", "cancel", "trigger", "backfill");
    private static final Set<String> RUN_CONTROLS = Set.of("requeue", "cancel");
    private static final Set<String> QUEUE_CONTROLS = Set.of("pause", "resume");

    private RouteScopes() {
    }

    /**
     * The scope a request needs, or empty for an open route.
     *
     * @param method the HTTP method
     * @param path   the path, with or without leading, trailing or doubled slashes (they are ignored)
     */
    public static Optional<Scope> required(String method, String path) {
        List<String> segments = segments(path);
        if (segments.size() == 1 && OPEN.contains(segments.get(0))) {
            return Optional.empty();
        }
        if ("GET".equals(method) || "HEAD".equals(method)) {
            return segments.equals(OPEN_API) ? Optional.empty() : Optional.of(Scope.READ);
        }
        if ("PUT".equals(method) && segments.size() == 3 && segments.get(0).equals("api")
                && segments.get(1).equals("queues")) {
            return Optional.of(Scope.OPERATE);
        }
        boolean oneJob = segments.size() == 3 && segments.get(0).equals("api") && segments.get(1).equals("jobs");
        if ("PATCH".equals(method) && oneJob) {
            return Optional.of(Scope.SUBMIT);
        }
        if ("DELETE".equals(method) && oneJob) {
            return Optional.of(Scope.OPERATE);
        }
        if (!"POST".equals(method) || segments.size() < 2 || !segments.get(0).equals("api")) {
            return Optional.of(Scope.ADMIN);
        }
        String collection = segments.get(1);
        if (segments.size() == 2 && (collection.equals("jobs") || collection.equals("batches"))) {
            return Optional.of(Scope.SUBMIT);
        }
        if (segments.size() == 4 && collection.equals("jobs") && JOB_CONTROLS.contains(segments.get(3))) {
            return Optional.of(Scope.OPERATE);
        }
        if (segments.size() == 4 && collection.equals("queues") && QUEUE_CONTROLS.contains(segments.get(3))) {
            return Optional.of(Scope.OPERATE);
        }
        if (segments.size() == 4 && collection.equals("runs") && RUN_CONTROLS.contains(segments.get(3))) {
            return Optional.of(Scope.OPERATE);
        }
        return Optional.of(Scope.ADMIN);
    }

    /** The non-empty segments of {@code path} (leading, trailing and doubled slashes ignored). */
    static List<String> segments(String path) {
        List<String> segments = new ArrayList<>();
        if (path != null) {
            for (String s : path.split("/")) {
                if (!s.isEmpty()) {
                    segments.add(s);
                }
            }
        }
        return segments;
    }
}
