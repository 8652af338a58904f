package io.forgeflow.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The body of {@code POST /api/batches}: up to 10,000 one-off jobs created in one transaction, all or nothing. Each
 * job may have a {@code ref} that other jobs of the batch name in their {@code dependsOn}; {@code onComplete} is a job
 * that runs once every job of the batch has ended. Build one with {@link #builder()}, or take a body as written
 * ({@link #fromJson(String)}), which is sent as it is.
 *
 * <pre>{@code
 * BatchRequest batch = BatchRequest.builder().name("import").idempotencyKey("import-2026-12-02")
 *         .job("a", JobRequest.shell("extract", "echo a").build())
 *         .job("b", JobRequest.shell("load", "echo b").dependsOn("a").build())
 *         .onComplete(JobRequest.http("notify", "https://example.com/done").build())
 *         .build();
 * }</pre>
 */
public final class BatchRequest {
    private static final ObjectMapper JSON = Json.mapper();

    private final ObjectNode body;

    private BatchRequest(ObjectNode body) {
        this.body = body;
    }

    /** A batch with nothing set yet. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A body written by hand (a file, another program): a JSON object, sent unchanged, so the server checks every
     * field of it.
     *
     * @throws IllegalArgumentException when the text is not one JSON object
     */
    public static BatchRequest fromJson(String json) {
        Objects.requireNonNull(json, "json");
        JsonNode tree;
        try {
            tree = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the batch is not JSON: " + e.getOriginalMessage(), e);
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("the batch must be a JSON object, like {\"jobs\": [{\"ref\": \"a\", "
                    + "\"name\": \"extract\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo a\"}}]}");
        }
        return new BatchRequest((ObjectNode) tree);
    }

    /** The JSON to send, a copy. */
    public ObjectNode body() {
        return body.deepCopy();
    }

    /** How many jobs it holds (not counting {@code on_complete}). */
    public int size() {
        JsonNode jobs = body.get("jobs");
        return jobs != null && jobs.isArray() ? jobs.size() : 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatchRequest other && body.equals(other.body);
    }

    @Override
    public int hashCode() {
        return body.hashCode();
    }

    @Override
    public String toString() {
        return "BatchRequest" + body;
    }

    /** Fluent construction; {@code name}, {@code idempotencyKey}, {@code tenant} and {@code onComplete} are optional. */
    public static final class Builder {
        private String name;
        private String idempotencyKey;
        private final List<ObjectNode> jobs = new ArrayList<>();
        private JobRequest onComplete;
        private String tenant;

        private Builder() {
        }

        /**
         * The tenant the batch and its jobs are made in, sent as the batch's {@code tenant} field; null (the default)
         * sends none: the tenant the request acts in. A job of the batch may name its own
         * ({@link JobRequest.Builder#tenant(String)}); the server decides whether it may differ.
         */
        public Builder tenant(String tenant) {
            this.tenant = tenant;
            return this;
        }

        /** At most 200 characters. */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** A replay with the same key answers that batch (same body) or a 409 (another body). At most 200 characters. */
        public Builder idempotencyKey(String key) {
            this.idempotencyKey = key;
            return this;
        }

        /**
         * A job named {@code ref} (1-100 characters, unique in the batch; null for none) that other jobs of the batch
         * can name in their {@code dependsOn}. A job of a batch takes no idempotency or unique key.
         */
        public Builder job(String ref, JobRequest job) {
            Objects.requireNonNull(job, "job");
            ObjectNode entry = JSON.createObjectNode();
            if (ref != null) {
                entry.put("ref", ref);
            }
            entry.setAll((ObjectNode) JSON.valueToTree(job));
            jobs.add(entry);
            return this;
        }

        /** A job without a ref. */
        public Builder job(JobRequest job) {
            return job(null, job);
        }

        /** The job made with the batch that runs once every job of it has ended (no {@code dependsOn}). */
        public Builder onComplete(JobRequest job) {
            this.onComplete = job;
            return this;
        }

        public BatchRequest build() {
            ObjectNode body = JSON.createObjectNode();
            if (name != null) {
                body.put("name", name);
            }
            if (idempotencyKey != null) {
                body.put("idempotency_key", idempotencyKey);
            }
            if (tenant != null) {
                body.put("tenant", tenant);
            }
            ArrayNode list = body.putArray("jobs");
            jobs.forEach(job -> list.add(job.deepCopy()));
            if (onComplete != null) {
                body.set("on_complete", JSON.valueToTree(onComplete));
            }
            return new BatchRequest(body);
        }
    }
}
