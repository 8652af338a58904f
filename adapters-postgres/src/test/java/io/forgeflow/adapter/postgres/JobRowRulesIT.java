package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 40: the database's own rules of a stored job (migration 0030, {@code forgeflow_job_rules}). Every rule the 40
 * CHECK constraints held is still enforced on insert and on update, for any writer, and is reported as the
 * constraint was: SQLSTATE 23514 naming it. A NULL passes, as it passes a CHECK.
 */
class JobRowRulesIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    /** One rule broken per case: its former constraint's name and the columns that break it. */
    record Broken(String rule, String columns, String values) {
        @Override
        public String toString() {
            return rule;
        }
    }

    static List<Broken> rules() {
        String key264 = "'" + "k".repeat(265) + "'";
        String cron = "'0 * * * *'";
        return List.of(
                new Broken("jobs_name_length", "name", "''"),
                new Broken("jobs_executor_length", "executor", "'" + "e".repeat(101) + "'"),
                new Broken("jobs_payload_object", "payload", "'[]'"),
                new Broken("jobs_priority_range", "priority", "10"),
                new Broken("jobs_max_attempts_range", "max_attempts", "0"),
                new Broken("jobs_timeout_range", "timeout_seconds", "86401"),
                new Broken("jobs_catch_up_values", "catch_up", "'twice'"),
                new Broken("jobs_idempotency_key_length", "idempotency_key", key264),
                new Broken("jobs_status_values", "status", "'done'"),
                new Broken("jobs_one_schedule", "cron_expr, run_at", cron + ", now()"),
                new Broken("jobs_queue_name", "queue", "'bad queue'"),
                new Broken("jobs_concurrency_key_length", "concurrency_key, max_concurrent", key264 + ", 1"),
                new Broken("jobs_max_concurrent_range", "concurrency_key, max_concurrent", "'k', 10001"),
                new Broken("jobs_key_needs_limit", "concurrency_key", "'k'"),
                new Broken("jobs_overlap_values", "overlap", "'never'"),
                new Broken("jobs_submitted_via_values", "submitted_via", "'grpc'"),
                new Broken("jobs_unique_key_length", "unique_key", "''"),
                new Broken("jobs_unique_key_one_off", "unique_key, cron_expr", "'u', " + cron),
                new Broken("jobs_retry_base_range", "retry_base_seconds", "0"),
                new Broken("jobs_retry_max_range", "retry_max_seconds", "86401"),
                new Broken("jobs_retry_base_at_most_max", "retry_base_seconds, retry_max_seconds", "60, 30"),
                new Broken("jobs_labels_object", "labels", "'\"x\"'"),
                new Broken("jobs_on_parent_failure_values", "on_parent_failure", "'ignore'"),
                new Broken("jobs_jitter_range", "cron_expr, jitter_seconds", cron + ", -1"),
                new Broken("jobs_max_runs_range", "cron_expr, max_runs", cron + ", 0"),
                new Broken("jobs_pause_after_failures_range", "cron_expr, pause_after_failures", cron + ", 1001"),
                new Broken("jobs_paused_note_length", "paused_note", "''"),
                new Broken("jobs_paused_by_length", "paused_by", "''"),
                new Broken("jobs_window_order", "cron_expr, start_at, end_at", cron + ", now(), now() - interval '1 hour'"),
                new Broken("jobs_controls_recurring", "max_runs", "5"),
                new Broken("jobs_fired_runs_positive", "fired_runs", "-1"),
                new Broken("jobs_sequence_key_length", "sequence_key", "''"),
                new Broken("jobs_sequence_on_dead_values", "sequence_on_dead", "'skip'"),
                new Broken("jobs_sequence_one_off", "sequence_key, cron_expr", "'s', " + cron),
                new Broken("jobs_dead_streak_positive", "dead_streak", "-1"),
                new Broken("jobs_notify_shape", "notify", "'{\"url\": \"http://x\", \"on\": []}'"),
                new Broken("jobs_debounce_shape", "debounce", "'{\"key\": \"k\", \"period_seconds\": 5, \"edge\": \"middle\"}'"),
                new Broken("jobs_throttle_shape", "throttle", "'{\"key\": \"k\", \"count\": 0, \"per_seconds\": 60}'"),
                new Broken("jobs_debounce_one_off", "debounce, cron_expr",
                        "'{\"key\": \"k\", \"period_seconds\": 5, \"edge\": \"leading\"}', " + cron),
                new Broken("jobs_tenant_name", "tenant", "'Acme'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void anInsertBreakingARuleIsRefusedNamingIt(Broken broken) throws SQLException {
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            String columns = "id, " + broken.columns();
            String values = "'" + UUID.randomUUID() + "', " + broken.values();
            for (String required : List.of("name", "executor")) {
                if (!broken.columns().contains(required)) {
                    columns += ", " + required;
                    values += ", 'rules'";
                }
            }
            String insert = "INSERT INTO jobs (" + columns + ") VALUES (" + values + ")";
            assertThatThrownBy(() -> st.executeUpdate(insert))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertNamed(e, broken.rule()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void anUpdateBreakingARuleIsRefusedAndChangesNothing(Broken broken) throws SQLException {
        UUID id = UUID.randomUUID();
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO jobs (id, name, executor) VALUES ('" + id + "', 'rules', 'noop')");
            assertThatThrownBy(() -> st.executeUpdate("UPDATE jobs SET (" + broken.columns() + ") = ROW("
                    + broken.values() + ") WHERE id = '" + id + "'"))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertNamed(e, broken.rule()));
            try (var rs = st.executeQuery("SELECT name, executor, status FROM jobs WHERE id = '" + id + "'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(3)).isEqualTo("active");
            }
        }
    }

    @Test
    void everyRuleHasACaseAndTheTableHasOneCheck() throws SQLException {
        String body;
        List<String> checks = new java.util.ArrayList<>();
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            try (var rs = st.executeQuery("SELECT prosrc FROM pg_proc WHERE proname = 'forgeflow_job_rules'")) {
                assertThat(rs.next()).isTrue();
                body = rs.getString(1);
            }
            try (var rs = st.executeQuery("SELECT conname FROM pg_constraint WHERE conrelid = 'jobs'::regclass"
                    + " AND contype = 'c'")) {
                while (rs.next()) {
                    checks.add(rs.getString(1));
                }
            }
        }
        List<String> named = java.util.regex.Pattern.compile("broken := '([a-z_]+)'").matcher(body).results()
                .map(m -> m.group(1)).toList();
        assertThat(named).containsExactlyInAnyOrderElementsOf(rules().stream().map(Broken::rule).toList());
        assertThat(checks).containsExactly("jobs_rules");
    }

    @Test
    void nullsPassAndAFullyValidRecurringJobIsStored() throws SQLException {
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            assertThat(st.executeUpdate("INSERT INTO jobs (id, name, executor, cron_expr, start_at, end_at, max_runs,"
                    + " jitter_seconds, pause_after_failures, retry_base_seconds, retry_max_seconds, concurrency_key,"
                    + " max_concurrent, notify, tenant) VALUES ('" + UUID.randomUUID() + "', 'ok', 'noop',"
                    + " '0 * * * *', now(), now() + interval '1 day', 10, 30, 3, 5, 60, 'k', 2,"
                    + " '{\"url\": \"http://x\", \"on\": [\"dead\"]}', 'acme')")).isEqualTo(1);
            assertThat(st.executeUpdate("INSERT INTO jobs (id, name, executor, idempotency_key, unique_key,"
                    + " retry_base_seconds, retry_max_seconds, on_parent_failure, sequence_key, sequence_on_dead,"
                    + " debounce, throttle) VALUES ('" + UUID.randomUUID() + "', 'ok', 'noop', NULL, NULL, NULL,"
                    + " NULL, NULL, NULL, NULL, NULL, '{\"key\": \"t\", \"count\": 5, \"per_seconds\": 60}')"))
                    .isEqualTo(1);
        }
    }

    private static void assertNamed(PSQLException e, String rule) {
        ServerErrorMessage server = e.getServerErrorMessage();
        assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("23514");
        assertThat(server.getConstraint()).as(e.getMessage()).isEqualTo(rule);
        assertThat(server.getTable()).isEqualTo("jobs");
        assertThat(e.getMessage()).contains("violates check constraint \"" + rule + "\"");
    }
}
