package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.LeaderElection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.io.Closeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Scheduler leadership by a lease row with a term ({@link LeaderElection}), for nodes that have no session of their
 * own (behind PgBouncer in transaction mode without {@code FORGEFLOW_DATABASE_SESSION_URL}): every statement is one
 * autocommitted upsert on a pooled connection, so nothing depends on the session.
 *
 * <p>The row {@code leader_lease(name, holder, term, expires_at)}: a campaign renews the lease when this node holds it
 * in the term it knows and it has not expired ({@code expires_at = now() + ttl}, the database's clock), or takes it
 * over when it has expired, with {@code term + 1}. Two campaigners racing for an expired lease are serialised by the
 * row lock: the second sees the first's fresh lease and gets nothing.
 *
 * <p><b>Fencing.</b> {@link #isLeader()}, which every duty of the leader checks before it acts and between its
 * batches, is true only while the lease this node last renewed is surely its own: until {@code ttl} minus a tenth,
 * counted on this process's monotonic clock from <em>before</em> the renewing statement was sent, so it ends before
 * the database lets anyone else take over. A leader stalled (a pause, a cut-off network) past that point stops acting
 * without a round trip, and its next campaign finds the term moved on and steps down. What no check can cover, a
 * statement already sent before the stall, the schema covers as it does for the advisory lock: ticks are a
 * compare-and-set with a unique index, lease recovery re-checks each lease's expiry in its update.
 */
public final class LeaseLeaderElection implements LeaderElection, Closeable {
    /** The lease of the scheduler. */
    public static final String SCHEDULER = "scheduler";

    private static final Logger LOG = LoggerFactory.getLogger(LeaseLeaderElection.class);

    private static final String CAMPAIGN = """
            INSERT INTO leader_lease AS l (name, holder, term, expires_at)
            VALUES (?, ?, 1, now() + ? * interval '1 millisecond')
            ON CONFLICT (name) DO UPDATE
                SET holder     = excluded.holder,
                    term       = CASE WHEN l.holder = excluded.holder AND l.term = ? AND l.expires_at > now()
                                      THEN l.term ELSE l.term + 1 END,
                    expires_at = excluded.expires_at
                WHERE (l.holder = excluded.holder AND l.term = ? AND l.expires_at > now()) OR l.expires_at <= now()
            RETURNING l.term""";
    private static final String RESIGN =
            "UPDATE leader_lease SET expires_at = now() WHERE name = ? AND holder = ? AND term = ? AND expires_at > now()";

    private final DataSource dataSource;
    private final String name;
    private final String holder;
    private final Duration ttl;
    private final LongSupplier nanoTime;
    /** The term this node last held (0: none yet); a renewal must name it. */
    private long term;
    private volatile long leadingTerm;
    private volatile boolean leader;
    /** Until when (this process's {@link System#nanoTime}) the lease is surely still this node's. */
    private volatile long fencedAfter;

    /**
     * @param dataSource the pool (a transaction pooler is fine)
     * @param holder     this node's worker id
     * @param ttl        how long a lease lasts unless renewed (the leader renews it every scheduler tick)
     */
    public LeaseLeaderElection(DataSource dataSource, String holder, Duration ttl) {
        this(dataSource, SCHEDULER, holder, ttl, System::nanoTime);
    }

    /** Another lease name (tests), and a clock for the fence (tests stall it). */
    public LeaseLeaderElection(DataSource dataSource, String name, String holder, Duration ttl, LongSupplier nanoTime) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.name = Objects.requireNonNull(name, "name");
        this.holder = Objects.requireNonNull(holder, "holder");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        if (ttl.toMillis() < 10) {
            throw new IllegalArgumentException("ttl must be at least 10 ms, was " + ttl);
        }
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    @Override
    public synchronized boolean campaign() {
        long sentAt = nanoTime.getAsLong();
        long won;
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(CAMPAIGN)) {
            st.setString(1, name);
            st.setString(2, holder);
            st.setLong(3, ttl.toMillis());
            st.setLong(4, term);
            st.setLong(5, term);
            try (ResultSet rs = st.executeQuery()) {
                won = rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException | RuntimeException e) {
            if (leader) {
                LOG.warn("stepping down: the lease (term {}) could not be renewed ({})", term, e.getMessage());
            } else {
                LOG.debug("campaign failed: {}", e.getMessage());
            }
            leader = false; // the term is kept: the next campaign may still renew it
            return false;
        }
        if (won == 0) {
            if (leader || leadingTerm != 0) {
                LOG.warn("stepping down: the scheduler lease (term {}) was taken over", term);
            }
            leader = false;
            leadingTerm = 0;
            return false;
        }
        fencedAfter = sentAt + ttl.toNanos() - ttl.toNanos() / 10;
        if (won != term || !leader) {
            LOG.info("leading the scheduler (lease {}, term {})", name, won);
        }
        term = won;
        leadingTerm = won;
        leader = true;
        return true;
    }

    /** Leading, and still before the fence: the lease cannot have been taken over yet. No round trip. */
    @Override
    public boolean isLeader() {
        return leader && nanoTime.getAsLong() - fencedAfter < 0;
    }

    /** The term this node leads in, 0 when it does not lead. */
    public long term() {
        return isLeader() ? leadingTerm : 0;
    }

    @Override
    public synchronized void resign() {
        if (!leader) {
            return;
        }
        leader = false;
        leadingTerm = 0;
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(RESIGN)) {
            st.setString(1, name);
            st.setString(2, holder);
            st.setLong(3, term);
            st.executeUpdate();
            LOG.info("resigned the scheduler lead (lease {}, term {})", name, term);
        } catch (SQLException | RuntimeException e) {
            LOG.debug("resigning failed (the lease expires by itself): {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        resign();
    }
}
