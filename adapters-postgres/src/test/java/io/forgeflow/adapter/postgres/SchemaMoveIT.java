package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.run.Run;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An install of the release before schemas (everything in public, made by that release's changelog) with data in
 * every state, migrated by today's code: everything moves into the forgeflow schema and keeps working.
 */
class SchemaMoveIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @Test
    void anInstallInPublicWithDataInEveryStateMovesIntoItsSchemaAndKeepsWorking() throws Exception {
        PGSimpleDataSource db = (PGSimpleDataSource) pg.createEmptyDatabase();
        applyReleaseBeforeSchemas(db);
        Jdbi old = PostgresJdbi.create(db);
        old.useHandle(h -> {
            h.execute("CREATE TABLE public.orders (id int PRIMARY KEY)"); // the application's own table stays
            h.execute("INSERT INTO public.jobs (id, name, executor, payload, status, next_run_at) VALUES "
                    + "('018f0000-0000-7000-8000-000000000001', 'active', 'shell', '{\"command\": \"true\"}', 'active', now()),"
                    + "('018f0000-0000-7000-8000-000000000002', 'paused', 'shell', '{\"command\": \"true\"}', 'paused', now()),"
                    + "('018f0000-0000-7000-8000-000000000003', 'cancelled', 'shell', '{\"command\": \"true\"}', 'cancelled', NULL),"
                    + "('018f0000-0000-7000-8000-000000000004', 'done', 'shell', '{\"command\": \"true\"}', 'completed', NULL)");
            String run = "INSERT INTO public.runs (id, job_id, status, priority, scheduled_for, attempt, max_attempts, "
                    + "worker_id, lease_expires_at, started_at, finished_at, executor, payload, timeout_seconds) VALUES ";
            h.execute(run + "('018f0000-0000-7000-8000-0000000000a1', '018f0000-0000-7000-8000-000000000001', 'pending', 5, "
                    + "now() - interval '1 minute', 0, 3, NULL, NULL, NULL, NULL, 'shell', '{\"command\": \"true\"}', 60)");
            h.execute(run + "('018f0000-0000-7000-8000-0000000000a2', '018f0000-0000-7000-8000-000000000001', 'running', 5, "
                    + "now(), 1, 3, 'w1', now() + interval '1 hour', now(), NULL, 'shell', '{}', 60)");
            h.execute(run + "('018f0000-0000-7000-8000-0000000000a3', '018f0000-0000-7000-8000-000000000004', 'succeeded', 5, "
                    + "now(), 1, 3, NULL, NULL, now(), now(), 'shell', '{}', 60)");
            h.execute(run + "('018f0000-0000-7000-8000-0000000000a4', '018f0000-0000-7000-8000-000000000002', 'dead', 5, "
                    + "now(), 3, 3, NULL, NULL, now(), now(), 'shell', '{}', 60)");
            h.execute(run + "('018f0000-0000-7000-8000-0000000000a5', '018f0000-0000-7000-8000-000000000003', 'cancelled', 5, "
                    + "now(), 0, 3, NULL, NULL, NULL, now(), 'shell', '{}', 60)");
            h.execute("INSERT INTO public.run_attempts (run_id, attempt, worker_id, started_at, finished_at, outcome) VALUES "
                    + "('018f0000-0000-7000-8000-0000000000a2', 1, 'w1', now(), NULL, NULL),"
                    + "('018f0000-0000-7000-8000-0000000000a3', 1, 'w1', now(), now(), 'succeeded')");
            h.execute("INSERT INTO public.queues (name, paused, max_running) VALUES ('billing', false, 2)");
            h.execute("INSERT INTO public.queue_starts (queue, started_at) VALUES ('billing', now())");
            h.execute("INSERT INTO public.nodes (worker_id, roles, version, started_at, last_seen_at) "
                    + "VALUES ('w1', '{worker}', '0.1.0', now(), now())");
        });

        PostgresMigrations.migrate(db, "forgeflow");

        assertThat(tablesIn(old, "public")).containsExactly("orders");
        assertThat(tablesIn(old, "forgeflow")).contains("databasechangelog", "databasechangeloglock", "jobs", "runs",
                "run_attempts", "nodes", "queues", "queue_starts", "executors");
        assertThat(number(old, "SELECT count(*) FROM pg_proc p JOIN pg_namespace n "
                + "ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.proname LIKE 'forgeflow%'")).isZero();

        PGSimpleDataSource inSchema = new PGSimpleDataSource();
        inSchema.setURL(db.getURL());
        inSchema.setUser(db.getUser());
        inSchema.setPassword(db.getPassword());
        inSchema.setCurrentSchema("forgeflow");
        assertThat(PostgresMigrations.pendingChangeSets(db, "forgeflow")).isEmpty();
        Jdbi moved = PostgresJdbi.create(inSchema);
        assertThat(strings(moved, "SELECT status || '=' || count(*) FROM runs GROUP BY status ORDER BY status"))
                .containsExactly("cancelled=1", "dead=1", "pending=1", "running=1", "succeeded=1");
        assertThat(number(moved, "SELECT count(*) FROM jobs WHERE submitted_via = 'rest'")).isEqualTo(4);
        assertThat(number(moved, "SELECT count(*) FROM run_attempts")).isEqualTo(2);
        assertThat(number(moved, "SELECT count(*) FROM queues") + number(moved, "SELECT count(*) FROM queue_starts")
                + number(moved, "SELECT count(*) FROM nodes")).isEqualTo(3);

        // the claim engine (functions moved with the tables) takes the pending run
        List<Run> claimed = new PostgresRunQueue(moved, null).claim("w2", Set.of("shell"), QueueSelection.ALL, 10,
                Duration.ofMinutes(1));
        assertThat(claimed).extracting(Run::id).containsExactly("018f0000-0000-7000-8000-0000000000a1");

        // enqueue() works from a session that does not search the schema
        Jdbi app = old;
        new PostgresExecutorCatalog(moved).record(List.of("shell"), "w2");
        assertThat(strings(app, "SELECT created::text FROM forgeflow.enqueue(name => 'after', "
                + "executor => 'shell', payload => '{\"command\": \"true\"}')")).containsExactly("true");

        // a second migration finds nothing to move and nothing pending
        PostgresMigrations.migrate(db, "forgeflow");
        assertThat(tablesIn(old, "public")).containsExactly("orders");
    }

    private static long number(Jdbi jdbi, String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }

    private static List<String> strings(Jdbi jdbi, String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(String.class).list());
    }

    private static List<String> tablesIn(Jdbi jdbi, String schema) {
        return jdbi.withHandle(h -> h.createQuery("SELECT table_name FROM information_schema.tables "
                + "WHERE table_schema = :schema ORDER BY table_name").bind("schema", schema).mapTo(String.class).list());
    }

    private static void applyReleaseBeforeSchemas(javax.sql.DataSource dataSource) throws Exception {
        io.forgeflow.adapter.postgres.testing.ReleaseBeforeSchemas.apply(dataSource);
    }
}
