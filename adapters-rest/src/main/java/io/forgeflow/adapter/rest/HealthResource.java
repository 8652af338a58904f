package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Liveness ({@code /healthz}: the process answers) and readiness ({@code /readyz}: it can do its work). */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public final class HealthResource {
    private static final Logger LOG = LoggerFactory.getLogger(HealthResource.class);
    private final ReadinessCheck readiness;

    public HealthResource(ReadinessCheck readiness) {
        this.readiness = Objects.requireNonNull(readiness, "readiness");
    }

    @GET
    @Path("healthz")
    public StatusResponse healthz() {
        return new StatusResponse("ok");
    }

    /**
     * 200 {@code {"status": "ready"}} (with {@code "warnings": [...]} when the node has any, such as running without
     * authentication on a public address), or 503 {@code {"error": "<reason>"}}.
     */
    @GET
    @Path("readyz")
    public Response readyz() {
        Optional<String> problem;
        try {
            problem = readiness.problem();
        } catch (RuntimeException e) {
            LOG.warn("readiness check failed", e);
            problem = Optional.of("readiness check failed: " + e);
        }
        if (problem == null) {
            problem = Optional.of("readiness check gave no answer");
        }
        if (problem.isEmpty()) {
            return Response.ok(new ReadyResponse("ready", warnings()), MediaType.APPLICATION_JSON_TYPE).build();
        }
        return ErrorBody.response(503, problem.get(), null);
    }

    private List<String> warnings() {
        try {
            List<String> warnings = readiness.warnings();
            return warnings == null ? List.of() : warnings;
        } catch (RuntimeException e) {
            LOG.warn("readiness warnings failed", e);
            return List.of();
        }
    }

    /** {@code {"status": "ready", "warnings": [...]}}; {@code warnings} only when there are some. */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    @JsonPropertyOrder({"status", "warnings"})
    public record ReadyResponse(@JsonProperty("status") String status, @JsonProperty("warnings") List<String> warnings) {
    }
}
