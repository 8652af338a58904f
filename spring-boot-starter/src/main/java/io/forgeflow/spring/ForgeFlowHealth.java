package io.forgeflow.spring;

import io.forgeflow.embedded.ForgeFlowWorker;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the actuator's {@code forgeFlow} health contributor reports (Boot 3: {@link ForgeFlowHealthIndicator}, Boot 4:
 * {@link ForgeFlowHealthContributor}): DOWN when ForgeFlow's tables cannot be read through the application's
 * {@code DataSource}; else UP with the worker's id, whether it leads the scheduler, its busy slots, and the lag of
 * its handlers' work (the runs due for them and how long the oldest has waited).
 */
public final class ForgeFlowHealth {
    private final DataSource dataSource;
    private final String schema;
    private final ForgeFlowLifecycle lifecycle;
    private final ForgeFlowHandlers handlers;

    /** The outcome of one check: up or not, its details, and the failure when down. */
    public record Report(boolean up, Map<String, Object> details, Throwable error) {
    }

    public ForgeFlowHealth(DataSource dataSource, String schema, ForgeFlowLifecycle lifecycle,
                           ForgeFlowHandlers handlers) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.lifecycle = lifecycle;
        this.handlers = handlers;
    }

    public Report check() {
        Map<String, Object> details = new LinkedHashMap<>();
        ForgeFlowWorker worker = lifecycle.worker();
        details.put("worker", worker == null ? "none" : worker.workerId());
        details.put("leader", worker != null && worker.isLeader());
        details.put("busySlots", worker == null ? 0 : worker.busySlots());
        String sql = "SELECT count(*), coalesce(extract(epoch FROM now() - min(scheduled_for)), 0) FROM " + schema
                + ".runs WHERE status = 'pending' AND scheduled_for <= now() AND executor = 'java' "
                + "AND payload ->> 'handler' = ANY (?)";
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setQueryTimeout(5);
            Array names = c.createArrayOf("text", handlers.handlers().keySet().toArray());
            s.setArray(1, names);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                details.put("dueRuns", rs.getLong(1));
                details.put("lagSeconds", Math.round(rs.getDouble(2)));
            }
            details.put("database", "reachable");
            return new Report(true, details, null);
        } catch (SQLException | RuntimeException e) {
            details.put("database", "unreachable: " + e.getMessage());
            return new Report(false, details, e);
        }
    }
}
