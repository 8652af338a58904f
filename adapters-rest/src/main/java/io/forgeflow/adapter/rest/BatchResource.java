package io.forgeflow.adapter.rest;

import io.forgeflow.application.workflow.SubmitBatch;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.port.Workflows.BatchCreation;
import io.forgeflow.domain.port.Workflows.BatchProgress;
import io.forgeflow.domain.trace.TraceContext;
import io.forgeflow.domain.workflow.BatchPlan;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/** {@code POST /api/batches} and {@code GET /api/batches/{id}} (API.md, "Workflows"). */
@Path("/api/batches")
@Produces(MediaType.APPLICATION_JSON)
public final class BatchResource {
    static final String EXAMPLE = "{\"jobs\": [{\"ref\": \"a\", \"name\": \"extract\", \"executor\": \"shell\", "
            + "\"payload\": {\"command\": \"echo a\"}}, {\"name\": \"load\", \"executor\": \"shell\", "
            + "\"payload\": {\"command\": \"echo b\"}, \"depends_on\": [\"a\"]}]}";
    static final List<String> FIELDS = List.of("name", "idempotency_key", "jobs", "on_complete", "tenant");
    private final SubmitBatch batches;

    public BatchResource(SubmitBatch batches) {
        this.batches = Objects.requireNonNull(batches, "batches");
    }

    /** 201 with the new batch; 200 with the batch an idempotency key made when the same body is sent again. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response submit(InputStream body, @Context UriInfo uri, @Context SecurityContext security,
                           @Context jakarta.ws.rs.container.ContainerRequestContext request,
                           @HeaderParam(JobResource.TRACEPARENT) String traceparent,
                           @HeaderParam(JobResource.TRACESTATE) String tracestate) {
        Map<String, Object> fields = JsonBody.readObject(body, EXAMPLE, io.forgeflow.adapter.rest.BodyLimitFilter.MAX_BATCH_BODY_BYTES);
        for (String key : fields.keySet()) {
            if (!FIELDS.contains(key)) {
                throw new ValidationException(JsonBody.shorten(key), "unknown field '" + JsonBody.shorten(key)
                        + "': a batch has " + String.join(", ", FIELDS));
            }
        }
        String name = text(fields, "name");
        String key = text(fields, "idempotency_key");
        // the batch and all its jobs are in one tenant; a job that names one names the batch's
        String tenant = Tenancy.of(request).forSubmission(text(fields, "tenant"));
        Object jobs = fields.get("jobs");
        if (!(jobs instanceof List<?> list)) {
            throw new ValidationException("jobs", "jobs must be a JSON array of 1 to " + BatchPlan.MAX_JOBS
                    + " job bodies, such as " + EXAMPLE);
        }
        if (list.size() > BatchPlan.MAX_JOBS) {
            throw new ValidationException("jobs", "jobs lists " + list.size() + " jobs: at most " + BatchPlan.MAX_JOBS
                    + " are allowed in one batch");
        }
        Set<String> refs = new HashSet<>();
        for (Object job : list) {
            if (job instanceof Map<?, ?> m && m.get("ref") instanceof String ref) {
                refs.add(ref);
            }
        }
        List<BatchPlan.Entry> entries = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String prefix = "jobs[" + i + "].";
            if (!(list.get(i) instanceof Map<?, ?> raw)) {
                throw new ValidationException("jobs[" + i + "]", "jobs[" + i + "] must be a job body (a JSON object)");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> job = new LinkedHashMap<>((Map<String, Object>) raw);
            Object ref = job.remove("ref");
            if (ref != null && !(ref instanceof String)) {
                throw new ValidationException(prefix + "ref", prefix + "ref must be a string such as \"extract\"");
            }
            JobSubmission.WithParents parsed = prefixed(prefix, () -> JobSubmission.withParents(job, prefix, refs));
            sameTenant(prefix, parsed.tenant(), tenant);
            JobResource.checkSubmitScope(security, parsed.draft().executor());
            List<Object> dependsOn = parsed.dependencies().isEmpty() ? null : new ArrayList<>(parsed.dependencies().parents());
            entries.add(new BatchPlan.Entry((String) ref, parsed.draft(), dependsOn,
                    parsed.dependencies().isEmpty() ? null : parsed.dependencies().onParentFailure().wireName()));
        }
        JobDraft onComplete = null;
        Object then = fields.get("on_complete");
        if (then != null) {
            if (!(then instanceof Map<?, ?> raw)) {
                throw new ValidationException("on_complete", "on_complete must be a job body (a JSON object)");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> job = new LinkedHashMap<>((Map<String, Object>) raw);
            sameTenant("on_complete.", JobSubmission.takeTenant(job, "on_complete."), tenant);
            onComplete = prefixed("on_complete.", () -> JobSubmission.toDraft(job));
            JobResource.checkSubmitScope(security, onComplete.executor());
        }
        BatchPlan plan = BatchPlan.validate(name, key, entries, onComplete);
        BatchCreation creation = batches.submit(tenant, plan, digest(fields),
                TraceContext.parse(traceparent, tracestate));
        BatchResponse response = BatchResponse.of(creation.batch(), creation.jobIds(), creation.refs());
        if (!creation.created()) {
            return Response.ok(response).build();
        }
        return Response.created(uri.getBaseUriBuilder().path("api/batches").path(response.id()).build())
                .entity(response).build();
    }

    /** A job of a batch is in the batch's tenant: naming another is refused on the job's field. */
    private static void sameTenant(String prefix, String named, String tenant) {
        if (named != null && !named.equals(tenant)) {
            throw new ValidationException(prefix + "tenant", prefix + "tenant '" + JsonBody.shorten(named) + "' is not "
                    + "the batch's tenant '" + tenant + "': a batch and its jobs are in one tenant; name it once, on "
                    + "the batch");
        }
    }

    @GET
    @Path("{id}")
    public BatchResponse get(@PathParam("id") String id) {
        if (!Ids.isWellFormed(id)) {
            throw new NotFoundException("batch", JsonBody.shorten(id));
        }
        BatchProgress batch = batches.get(id);
        return BatchResponse.of(batch, null, null);
    }

    private static String text(Map<String, Object> fields, String field) {
        Object v = fields.get(field);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw new ValidationException(field, field + " must be a string, not " + JobSubmission.kind(v));
    }

    private static <T> T prefixed(String prefix, java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (ValidationException e) {
            if (e.field() != null && e.field().startsWith(prefix)) {
                throw e;
            }
            String field = e.field() == null ? prefix.substring(0, prefix.length() - 1) : prefix + e.field();
            throw new ValidationException(field, prefix + e.getMessage());
        }
    }

    /** A digest of the request as parsed (object keys sorted): the same body gives the same digest. */
    static String digest(Object body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(canonical(body).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String canonical(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> sorted = new TreeMap<>();
            m.forEach((k, v) -> sorted.put(String.valueOf(k), v));
            StringBuilder out = new StringBuilder("{");
            sorted.forEach((k, v) -> out.append(quote(k)).append(':').append(canonical(v)).append(','));
            return out.append('}').toString();
        }
        if (value instanceof List<?> l) {
            StringBuilder out = new StringBuilder("[");
            l.forEach(v -> out.append(canonical(v)).append(','));
            return out.append(']').toString();
        }
        if (value instanceof String s) {
            return quote(s);
        }
        if (value instanceof java.math.BigDecimal d) {
            return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
        }
        return String.valueOf(value);
    }

    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
