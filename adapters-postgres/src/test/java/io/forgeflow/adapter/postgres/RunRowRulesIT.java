package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 40: the database's own rules of a stored run (migration 0032, {@code forgeflow_run_rules}), as
 * {@link JobRowRulesIT} for jobs. Every rule the 10 CHECK constraints held is still enforced on insert and on update
 * and reported as the constraint was (SQLSTATE 23514 naming it); a NULL passes.
 */
class RunRowRulesIT {
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
        return List.of(
                new Broken("runs_status_values", "status", "'paused'"),
                new Broken("runs_priority_range", "priority", "0"),
                new Broken("runs_attempt_non_negative", "attempt", "-1"),
                new Broken("runs_max_attempts_positive", "max_attempts", "0"),
                new Broken("runs_timeout_range", "timeout_seconds", "0"),
                new Broken("runs_running_is_leased", "status, worker_id", "'running', 'w1'"),
                new Broken("runs_key_has_limit", "concurrency_key", "'k'"),
                new Broken("runs_retry_base_range", "retry_base_seconds", "86401"),
                new Broken("runs_retry_max_range", "retry_max_seconds", "0"),
                new Broken("runs_retry_base_at_most_max", "retry_base_seconds, retry_max_seconds", "60, 30"));
    }

    private static final List<String> REQUIRED = List.of("status", "priority", "scheduled_for", "max_attempts",
            "executor", "timeout_seconds");
    private static final List<String> DEFAULTS = List.of("'pending'", "5", "now()", "3", "'noop'", "300");

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void anInsertBreakingARuleIsRefusedNamingIt(Broken broken) throws SQLException {
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            UUID job = job(st);
            String columns = "id, job_id, " + broken.columns();
            String values = "'" + UUID.randomUUID() + "', '" + job + "', " + broken.values();
            for (int i = 0; i < REQUIRED.size(); i++) {
                if (!broken.columns().contains(REQUIRED.get(i))) {
                    columns += ", " + REQUIRED.get(i);
                    values += ", " + DEFAULTS.get(i);
                }
            }
            String insert = "INSERT INTO runs (" + columns + ") VALUES (" + values + ")";
            assertThatThrownBy(() -> st.executeUpdate(insert))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertNamed(e, broken.rule()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void anUpdateBreakingARuleIsRefusedAndChangesNothing(Broken broken) throws SQLException {
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            UUID run = UUID.randomUUID();
            st.executeUpdate("INSERT INTO runs (id, job_id, " + String.join(", ", REQUIRED) + ") VALUES ('" + run
                    + "', '" + job(st) + "', " + String.join(", ", DEFAULTS) + ")");
            assertThatThrownBy(() -> st.executeUpdate("UPDATE runs SET (" + broken.columns() + ") = ROW("
                    + broken.values() + ") WHERE id = '" + run + "'"))
                    .isInstanceOfSatisfying(PSQLException.class, e -> assertNamed(e, broken.rule()));
            try (var rs = st.executeQuery("SELECT status, attempt FROM runs WHERE id = '" + run + "'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("pending");
                assertThat(rs.getInt(2)).isZero();
            }
        }
    }

    @Test
    void aRunningRunWithItsLeaseAndAKeyWithItsLimitAreStored() throws SQLException {
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            assertThat(st.executeUpdate("INSERT INTO runs (id, job_id, status, priority, scheduled_for, max_attempts,"
                    + " executor, timeout_seconds, worker_id, lease_expires_at, concurrency_key, max_concurrent,"
                    + " retry_base_seconds, retry_max_seconds) VALUES ('" + UUID.randomUUID() + "', '" + job(st)
                    + "', 'running', 9, now(), 1, 'noop', 86400, 'w1', now() + interval '1 minute', 'k', 1, 1, 86400)"))
                    .isEqualTo(1);
        }
    }

    @Test
    void everyRuleHasACaseAndTheTableHasOneCheck() throws SQLException {
        String body;
        List<String> checks = new ArrayList<>();
        try (Connection c = pg.dataSource().getConnection(); Statement st = c.createStatement()) {
            try (var rs = st.executeQuery("SELECT prosrc FROM pg_proc WHERE proname = 'forgeflow_run_rules'")) {
                assertThat(rs.next()).isTrue();
                body = rs.getString(1);
            }
            try (var rs = st.executeQuery("SELECT conname FROM pg_constraint WHERE conrelid = 'runs'::regclass"
                    + " AND contype = 'c'")) {
                while (rs.next()) {
                    checks.add(rs.getString(1));
                }
            }
        }
        List<String> named = Pattern.compile("broken := '([a-z_]+)'").matcher(body).results()
                .map(m -> m.group(1)).toList();
        assertThat(named).containsExactlyInAnyOrderElementsOf(rules().stream().map(Broken::rule).toList());
        assertThat(checks).containsExactly("runs_rules");
    }

    private static UUID job(Statement st) throws SQLException {
        UUID id = UUID.randomUUID();
        st.executeUpdate("INSERT INTO jobs (id, name, executor) VALUES ('" + id + "', 'rules', 'noop')");
        return id;
    }

    private static void assertNamed(PSQLException e, String rule) {
        assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("23514");
        assertThat(e.getServerErrorMessage().getConstraint()).as(e.getMessage()).isEqualTo(rule);
        assertThat(e.getServerErrorMessage().getTable()).isEqualTo("runs");
        assertThat(e.getMessage()).contains("violates check constraint \"" + rule + "\"");
    }
}
