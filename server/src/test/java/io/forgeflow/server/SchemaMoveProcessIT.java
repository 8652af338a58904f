package io.forgeflow.server;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.ReleaseBeforeSchemas;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database made by the release before schemas (everything in public) with work in every state; a node of this
 * release starts on it, moves it into the forgeflow schema, and carries on: the pending run runs, the run of a dead
 * worker is recovered and runs again, finished runs stay as they were, and the application can enqueue in SQL.
 */
class SchemaMoveProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @Test
    void aNodeMovesAnInstallOfThePreviousReleaseIntoItsSchemaAndRunsItsWork() throws Exception {
        PGSimpleDataSource db = (PGSimpleDataSource) pg.createEmptyDatabase();
        ReleaseBeforeSchemas.apply(db);
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO public.jobs (id, name, executor, payload, status, next_run_at) VALUES "
                    + "('018f0000-0000-7000-8000-000000000001', 'pending', 'shell', '{\"command\": \"echo waited\"}', 'active', now()),"
                    + "('018f0000-0000-7000-8000-000000000002', 'orphan', 'shell', '{\"command\": \"echo recovered\"}', 'active', now()),"
                    + "('018f0000-0000-7000-8000-000000000003', 'done', 'shell', '{\"command\": \"true\"}', 'completed', NULL),"
                    + "('018f0000-0000-7000-8000-000000000004', 'paused', 'shell', '{\"command\": \"true\"}', 'paused', NULL)");
            String run = "INSERT INTO public.runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, "
                    + "worker_id, lease_expires_at, started_at, finished_at, executor, payload, timeout_seconds) VALUES ";
            st.execute(run + "('018f0000-0000-7000-8000-0000000000a1', '018f0000-0000-7000-8000-000000000001', 'pending', 5, "
                    + "now() - interval '1 minute', 0, 3, NULL, NULL, NULL, NULL, 'shell', '{\"command\": \"echo waited\"}', 60)");
            st.execute(run + "('018f0000-0000-7000-8000-0000000000a2', '018f0000-0000-7000-8000-000000000002', 'running', 5, "
                    + "now() - interval '5 minutes', 1, 3, 'dead-node', now() - interval '1 minute', now() - interval '5 minutes', "
                    + "NULL, 'shell', '{\"command\": \"echo recovered\"}', 60)");
            st.execute(run + "('018f0000-0000-7000-8000-0000000000a3', '018f0000-0000-7000-8000-000000000003', 'succeeded', 5, "
                    + "now(), 1, 3, NULL, NULL, now(), now(), 'shell', '{}', 60)");
            st.execute(run + "('018f0000-0000-7000-8000-0000000000a4', '018f0000-0000-7000-8000-000000000004', 'cancelled', 5, "
                    + "now(), 0, 3, NULL, NULL, NULL, now(), 'shell', '{}', 60)");
            st.execute("INSERT INTO public.run_attempts (run_id, attempt, worker_id, started_at) VALUES "
                    + "('018f0000-0000-7000-8000-0000000000a2', 1, 'dead-node', now() - interval '5 minutes')");
            st.execute("INSERT INTO public.queues (name, paused) VALUES ('held', true)");
            st.execute("INSERT INTO public.nodes (worker_id, roles, version, started_at, last_seen_at) "
                    + "VALUES ('dead-node', '{worker}', '0.1.0', now() - interval '1 hour', now() - interval '10 minutes')");
        }

        String url = db.getURL() + (db.getURL().contains("?") ? "&" : "?") + "user=" + pg.user()
                + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        try (NodeProcess node = NodeProcess.start("mover", "api,scheduler,worker", url, Map.of(
                "FORGEFLOW_POLL_INTERVAL", "500ms", "FORGEFLOW_SCHEDULER_TICK", "500ms"))) {
            await(db, node, "SELECT count(*) FROM forgeflow.runs WHERE status = 'succeeded' AND output LIKE 'waited%'", 1);
            await(db, node, "SELECT count(*) FROM forgeflow.runs WHERE status = 'succeeded' AND output LIKE 'recovered%'", 1);
            assertThat(number(db, "SELECT count(*) FROM forgeflow.run_attempts WHERE run_id = "
                    + "'018f0000-0000-7000-8000-0000000000a2' AND outcome = 'lease_expired'")).isEqualTo(1);
            assertThat(number(db, "SELECT count(*) FROM forgeflow.runs WHERE status = 'cancelled'")).isEqualTo(1);
            assertThat(number(db, "SELECT count(*) FROM forgeflow.queues WHERE name = 'held' AND paused")).isEqualTo(1);
            assertThat(number(db, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"))
                    .isZero();

            try (Connection app = db.getConnection()) {
                app.setAutoCommit(false);
                Enqueued e = ForgeFlowJdbc.enqueue(app, JobRequest.shell("after-the-move", "echo moved").build());
                app.commit();
                await(db, node, "SELECT count(*) FROM forgeflow.runs WHERE id = '" + e.runId()
                        + "' AND status = 'succeeded'", 1);
            }
        }
    }

    static long number(PGSimpleDataSource db, String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void await(PGSimpleDataSource db, NodeProcess node, String sql, long expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (number(db, sql) != expected) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(sql + " did not reach " + expected + "\nnode log tail:\n"
                        + ClusterProcessIT.tail(node.logText()));
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
    }
}
