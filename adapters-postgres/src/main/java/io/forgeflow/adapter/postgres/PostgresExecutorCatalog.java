package io.forgeflow.adapter.postgres;

import org.jdbi.v3.core.Jdbi;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The executors the cluster knows, in table {@code executors}: what {@code enqueue()} checks an executor name
 * against in SQL. Every node records the executors it knows when it starts; rows are kept when nodes stop, so a name
 * once known stays accepted (a run for it waits for a node that runs it, as with REST).
 */
public final class PostgresExecutorCatalog {
    private final Jdbi jdbi;

    /** @param jdbi made by {@link PostgresJdbi#create} */
    public PostgresExecutorCatalog(Jdbi jdbi) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    }

    /**
     * Upserts {@code names} as seen now by {@code workerId}, in one statement (rows of other names are left alone).
     * Concurrent nodes may record the same names: the primary key decides, the last writer's time stays.
     */
    public void record(Collection<String> names, String workerId) {
        Objects.requireNonNull(workerId, "workerId");
        String[] sorted = new TreeSet<>(names).toArray(String[]::new);
        if (sorted.length == 0) {
            return;
        }
        jdbi.useHandle(handle -> handle.createUpdate("INSERT INTO executors (name, last_seen_by) "
                        + "SELECT n, :worker FROM unnest(CAST(:names AS text[])) AS n "
                        + "ON CONFLICT (name) DO UPDATE SET last_seen_at = now(), last_seen_by = excluded.last_seen_by")
                .bind("worker", workerId).bind("names", sorted).execute());
    }

    /** The names recorded, sorted. */
    public List<String> names() {
        return jdbi.withHandle(handle -> handle.createQuery("SELECT name FROM executors ORDER BY name")
                .mapTo(String.class).list());
    }
}
