package io.forgeflow.adapter.postgres.testing;

import io.forgeflow.domain.run.RunStatus;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

import java.util.ArrayList;
import java.util.List;

/**
 * Every test database holds the run lifecycle of {@link RunStatus} as a trigger: a status change of a run that the
 * table does not allow fails its statement (SQLSTATE {@value #SQLSTATE}, naming the run and both statuses), whichever
 * SQL made it. So every test that moves runs through the database checks the SQL against the domain's table; a test
 * that sets a status by hand to arrange a scene says so with {@link #shortcut}.
 */
public final class RunLifecycleGuard {
    /** The SQLSTATE of a transition the lifecycle does not allow. */
    public static final String SQLSTATE = "FFL01";
    private static final String BYPASS = "forgeflow.test_status_shortcut";

    private RunLifecycleGuard() {
    }

    /** The allowed pairs, {@code 'from>to'}, from {@link RunStatus#canMoveTo}. */
    public static List<String> allowed() {
        List<String> pairs = new ArrayList<>();
        for (RunStatus from : RunStatus.values()) {
            for (RunStatus to : RunStatus.values()) {
                if (from != to && from.canMoveTo(to)) {
                    pairs.add(from.wireName() + ">" + to.wireName());
                }
            }
        }
        return pairs;
    }

    static void install(Jdbi jdbi) {
        String pairs = String.join(",", allowed().stream().map(p -> "'" + p + "'").toList());
        jdbi.useHandle(h -> {
            // what the guard saw (no index: concurrent inserts never wait on each other); see seen()
            h.execute("CREATE TABLE IF NOT EXISTS test_lifecycle_seen (run_id uuid NOT NULL, pair text NOT NULL)");
            h.execute("CREATE OR REPLACE FUNCTION forgeflow_test_lifecycle_guard() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                    + "BEGIN\n"
                    + "    IF (OLD.status || '>' || NEW.status) <> ALL (ARRAY[" + pairs + "])\n"
                    + "       AND coalesce(current_setting('" + BYPASS + "', true), '') <> 'on' THEN\n"
                    + "        RAISE EXCEPTION 'run % moved from % to %, which RunStatus does not allow', NEW.id, OLD.status,"
                    + " NEW.status USING ERRCODE = '" + SQLSTATE + "';\n"
                    + "    END IF;\n"
                    + "    INSERT INTO test_lifecycle_seen (run_id, pair) VALUES (NEW.id, OLD.status || '>' || NEW.status);\n"
                    + "    RETURN NULL;\n"
                    + "END $$");
            h.execute("DROP TRIGGER IF EXISTS runs_test_lifecycle_guard ON runs");
            h.execute("CREATE TRIGGER runs_test_lifecycle_guard AFTER UPDATE OF status ON runs FOR EACH ROW "
                    + "WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION forgeflow_test_lifecycle_guard()");
        });
    }

    /** The transitions the guard let through since the database was made, {@code 'from>to'}, each once. */
    public static List<String> seen(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT DISTINCT pair FROM test_lifecycle_seen ORDER BY pair")
                .mapTo(String.class).list());
    }

    /** Runs a test's own status change (arranging a scene) past the guard, in a transaction of its own. */
    public static void shortcut(Jdbi jdbi, String sql, Object... arguments) {
        jdbi.useTransaction(h -> {
            h.execute("SELECT set_config('" + BYPASS + "', 'on', true)");
            h.execute(sql, arguments);
        });
    }

    /** The same on a handle the test holds (a transaction of its own if the handle is not in one). */
    public static void shortcut(Handle handle, String sql, Object... arguments) {
        handle.useTransaction(h -> {
            h.execute("SELECT set_config('" + BYPASS + "', 'on', true)");
            h.execute(sql, arguments);
        });
    }
}
