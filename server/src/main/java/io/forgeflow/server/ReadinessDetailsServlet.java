package io.forgeflow.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.adapter.postgres.PostgresHealth;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /readyz} on the admin port, for operators: the same cached probe as the public {@code /readyz}, with the
 * database's own words when it is not ready (the public route gives only a short reason).
 */
final class ReadinessDetailsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient PostgresHealth health;
    private final transient Supplier<List<String>> warnings;
    private final transient ObjectMapper json;

    ReadinessDetailsServlet(PostgresHealth health, Supplier<List<String>> warnings, ObjectMapper json) {
        this.health = health;
        this.warnings = warnings;
        this.json = json;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        PostgresHealth.Probe probe = health.probe();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", probe.ready() ? "ready" : "not ready");
        probe.reason().ifPresent(reason -> body.put("reason", reason));
        probe.detail().ifPresent(detail -> body.put("error", detail));
        List<String> w = warnings.get();
        if (w != null && !w.isEmpty()) {
            body.put("warnings", w);
        }
        response.setStatus(probe.ready() ? 200 : 503);
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "no-store");
        json.writeValue(response.getOutputStream(), body);
    }
}
