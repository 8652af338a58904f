package io.forgeflow.domain.port;

import java.time.Duration;
import java.util.Set;

/**
 * The handlers of the live embedded workers: which names of executor {@code java} some worker can run now. Each
 * embedded worker keeps its own entries current (at start and every heartbeat) and withdraws them when it stops; a
 * worker that dies leaves entries that expire. Read by the API, which shows a run or job whose handler no live worker
 * has as waiting rather than failing it.
 */
public interface HandlerRegistry {

    /**
     * Records that {@code workerId} has exactly {@code handlers} until now + {@code ttl} on the database clock: its
     * entries for other names are removed, in the same transaction. Idempotent; concurrent workers touch disjoint rows.
     */
    void announce(String workerId, Set<String> handlers, Duration ttl);

    /** Removes every entry of {@code workerId} (it stops). */
    void withdraw(String workerId);

    /** The names some worker announced whose entry has not expired yet (database clock). A plain read. */
    Set<String> liveHandlers();
}
