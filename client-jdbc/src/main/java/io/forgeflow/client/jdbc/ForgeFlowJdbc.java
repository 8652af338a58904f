package io.forgeflow.client.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Enqueues jobs on the caller's connection, inside the caller's transaction: nothing is committed, rolled back,
 * or changed in the connection's settings here. The job becomes visible to workers, and wakes them, when the caller
 * commits; a rollback leaves no trace. Thread-safe (it holds no state beyond the schema name).
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * insertOrder(connection, order);
 * Enqueued e = ForgeFlowJdbc.enqueue(connection, JobRequest.http("receipt-" + order.id(), receiptUrl).build());
 * connection.commit();
 * }</pre>
 *
 * <p>Bad input fails with the database's {@link SQLException}: SQLSTATE {@code 22023} and a message starting with the
 * field's name and saying how to fix it; a reused idempotency key with another request fails with {@code 23505}.
 * The caller's transaction is then aborted, as after any failed statement (use a savepoint to carry on). A malformed
 * {@code traceparent} or {@code tracestate} ({@link JobRequest.Builder#trace}) is refused earlier, by the request's
 * {@link IllegalArgumentException}, before anything reaches the database.
 */
public final class ForgeFlowJdbc {
    /** The schema ForgeFlow's migrations use unless configured otherwise ({@code FORGEFLOW_DATABASE_SCHEMA}). */
    public static final String DEFAULT_SCHEMA = "forgeflow";

    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    /** Null arguments take the function's defaults. */
    private static final String CALL = "SELECT job_id, run_id, created%s FROM %s.enqueue(name => ?, executor => ?, "
            + "payload => CAST(? AS jsonb), run_at => CAST(? AS timestamptz), priority => CAST(? AS integer), "
            + "max_attempts => CAST(? AS integer), timeout_seconds => CAST(? AS integer), queue => ?, "
            + "idempotency_key => ?, concurrency_key => ?, max_concurrent => CAST(? AS integer), "
            + "labels => CAST(? AS jsonb)%s)";
    /** Only sent with a retry policy, so requests without one also work against a schema from before issue 28. */
    private static final String RETRY_ARGS = ", retry_base_seconds => CAST(? AS integer), "
            + "retry_max_seconds => CAST(? AS integer)";

    /** Only sent with trace context, so requests without it also work against a schema from before issue 31. */
    private static final String TRACE_ARGS = ", traceparent => ?, tracestate => ?";

    /** Only sent with a sequence key, so requests without one also work against a schema from before issue 44. */
    private static final String SEQUENCE_ARGS = ", sequence_key => ?, on_dead => ?";

    /**
     * Only sent with a debounce or a throttle, so requests without them also work against a schema from before
     * them; the answer's {@code debounced} column is read only then.
     */
    private static final String FLOW_ARGS = ", debounce => CAST(? AS jsonb), throttle => CAST(? AS jsonb)";

    /** Only sent with a tenant, so requests without one also work against a schema from before issue 42. */
    private static final String TENANT_ARGS = ", tenant => ?";

    /** The call for each mix of optional arguments: bit 1 retry, 2 trace, 4 sequence, 8 flow control, 16 tenant. */
    private final String[] calls = new String[32];

    /** A helper for the ForgeFlow install in {@code schema}. */
    public ForgeFlowJdbc(String schema) {
        if (schema == null || !SCHEMA.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema must be 1 to 63 lower-case letters, digits or '_', starting with "
                    + "a letter or '_', e.g. \"" + DEFAULT_SCHEMA + "\"");
        }
        for (int mix = 0; mix < calls.length; mix++) {
            calls[mix] = String.format(CALL, (mix & 8) == 0 ? "" : ", debounced", schema,
                    ((mix & 1) == 0 ? "" : RETRY_ARGS) + ((mix & 2) == 0 ? "" : TRACE_ARGS)
                            + ((mix & 4) == 0 ? "" : SEQUENCE_ARGS) + ((mix & 8) == 0 ? "" : FLOW_ARGS)
                            + ((mix & 16) == 0 ? "" : TENANT_ARGS));
        }
    }

    private static final ForgeFlowJdbc DEFAULT = new ForgeFlowJdbc(DEFAULT_SCHEMA);

    /** Enqueues {@code request} in the default schema ({@value #DEFAULT_SCHEMA}); see {@link #submit}. */
    public static Enqueued enqueue(Connection connection, JobRequest request) throws SQLException {
        return DEFAULT.submit(connection, request);
    }

    /** Enqueues {@code request} on {@code connection}, in its current transaction (or alone, with auto-commit on). */
    public Enqueued submit(Connection connection, JobRequest request) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(request, "request");
        boolean retry = request.retryBaseSeconds() != null || request.retryMaxSeconds() != null;
        boolean traced = request.traceparent() != null;
        boolean sequenced = request.sequenceKey() != null;
        boolean flow = request.debounce() != null || request.throttle() != null;
        boolean tenanted = request.tenant() != null;
        try (PreparedStatement call = connection.prepareStatement(calls[(retry ? 1 : 0) + (traced ? 2 : 0)
                + (sequenced ? 4 : 0) + (flow ? 8 : 0) + (tenanted ? 16 : 0)])) {
            call.setString(1, request.name());
            call.setString(2, request.executor());
            call.setString(3, request.payloadJson());
            if (request.runAt() == null) {
                call.setNull(4, Types.TIMESTAMP_WITH_TIMEZONE);
            } else {
                call.setObject(4, request.runAt().atOffset(ZoneOffset.UTC));
            }
            setInteger(call, 5, request.priority());
            setInteger(call, 6, request.maxAttempts());
            setInteger(call, 7, request.timeoutSeconds());
            call.setString(8, request.queue());
            call.setString(9, request.idempotencyKey());
            call.setString(10, request.concurrencyKey());
            setInteger(call, 11, request.maxConcurrent());
            call.setString(12, request.labels().isEmpty() ? null : Json.write(request.labels()));
            int next = 13;
            if (retry) {
                setInteger(call, next++, request.retryBaseSeconds());
                setInteger(call, next++, request.retryMaxSeconds());
            }
            if (traced) {
                call.setString(next++, request.traceparent());
                call.setString(next++, request.tracestate());
            }
            if (sequenced) {
                call.setString(next++, request.sequenceKey());
                call.setString(next++, request.onDead());
            }
            if (flow) {
                call.setString(next++, request.debounce() == null ? null : request.debounce().json());
                call.setString(next++, request.throttle() == null ? null : request.throttle().json());
            }
            if (tenanted) {
                call.setString(next, request.tenant());
            }
            try (ResultSet rs = call.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("forgeflow.enqueue() returned no row");
                }
                return new Enqueued(rs.getString(1), rs.getString(2), rs.getBoolean(3), flow && rs.getBoolean(4));
            }
        }
    }

    private static void setInteger(PreparedStatement call, int index, Integer value) throws SQLException {
        if (value == null) {
            call.setNull(index, Types.INTEGER);
        } else {
            call.setInt(index, value);
        }
    }
}
