package io.forgeflow.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import org.springframework.jdbc.datasource.DataSourceUtils;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;

/**
 * The starter's {@link ForgeFlow}: {@code forgeflow.enqueue()} on the connection Spring's transaction holds
 * ({@link DataSourceUtils}), so the job commits or rolls back with the caller's work.
 */
public final class JdbcForgeFlow implements ForgeFlow {
    private final DataSource dataSource;
    private final ForgeFlowJdbc jdbc;
    private final ObjectMapper mapper;
    private final EnqueueTracing tracing;

    public JdbcForgeFlow(DataSource dataSource, String schema, ObjectMapper mapper) {
        this(dataSource, schema, mapper, null);
    }

    /** @param tracing gives each job the caller's trace context (null: jobs are submitted untraced) */
    public JdbcForgeFlow(DataSource dataSource, String schema, ObjectMapper mapper, EnqueueTracing tracing) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.jdbc = new ForgeFlowJdbc(schema);
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.tracing = tracing;
    }

    @Override
    public Enqueued submit(HandlerJob job) {
        JobRequest.Builder request = requestBuilder(job, mapper);
        if (tracing == null) {
            return submit(job, request.build());
        }
        return tracing.trace(job, trace -> submit(job,
                request.trace(trace.get("traceparent"), trace.get("tracestate")).build()));
    }

    private Enqueued submit(HandlerJob job, JobRequest request) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return jdbc.submit(connection, request);
        } catch (SQLException e) {
            throw new ForgeFlowException("enqueueing a job for handler '" + job.handler() + "' failed: "
                    + e.getMessage(), e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** The {@code forgeflow.enqueue()} request for {@code job}: executor {@code java}, payload {handler, args}. */
    public static JobRequest toRequest(HandlerJob job, ObjectMapper mapper) {
        return requestBuilder(job, mapper).build();
    }

    private static JobRequest.Builder requestBuilder(HandlerJob job, ObjectMapper mapper) {
        ObjectNode payload = mapper.createObjectNode();
        payload.put("handler", job.handler());
        JsonNode args = argsOf(job, mapper);
        if (args != null) {
            payload.set("args", args);
        }
        String json;
        try {
            json = mapper.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("args of handler '" + job.handler() + "' cannot be written as JSON: "
                    + e.getOriginalMessage(), e);
        }
        JobRequest.Builder b = JobRequest.builder(job.jobName(), "java").payloadJson(json).runAt(job.runAt())
                .priority(job.priority()).maxAttempts(job.maxAttempts()).timeoutSeconds(job.timeoutSeconds())
                .queue(job.queue()).idempotencyKey(job.idempotencyKey())
                .concurrency(job.concurrencyKey(), job.maxConcurrent());
        for (Map.Entry<String, String> label : job.labels().entrySet()) {
            b.label(label.getKey(), label.getValue());
        }
        return b;
    }

    /** The job's args as a JSON object, or null when it has none. */
    public static JsonNode argsOf(HandlerJob job, ObjectMapper mapper) {
        if (job.args() == null) {
            return null;
        }
        JsonNode args = mapper.valueToTree(job.args());
        if (!args.isObject()) {
            throw new IllegalArgumentException("args of handler '" + job.handler() + "' must be a JSON object (a record, "
                    + "a map or an ObjectNode), was " + args.getNodeType());
        }
        return args;
    }
}
