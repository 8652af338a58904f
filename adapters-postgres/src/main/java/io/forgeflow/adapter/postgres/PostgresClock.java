package io.forgeflow.adapter.postgres;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The database's clock as a {@link Clock}, for the due times the API computes (submission, resume, trigger), so they
 * agree with every later decision, which SQL takes with {@code now()}. It reads {@code clock_timestamp()} at most once
 * per {@link #REFRESH} and extrapolates in between on this node's monotonic timer (drift: parts per million). Each
 * read compares the node's wall clock with the database's; a difference beyond {@link #SKEW_WARNING} is logged (at
 * most once a minute) and readable as {@link #lastSkew()}. Thread-safe.
 */
public final class PostgresClock extends Clock {
    /** How long one reading of the database clock is used. */
    static final Duration REFRESH = Duration.ofSeconds(1);
    /** A node clock further than this from the database's is logged. */
    static final Duration SKEW_WARNING = Duration.ofSeconds(1);
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(PostgresClock.class);

    private final Jdbi jdbi;
    private final Clock node;
    private final LongSupplier nanoTime;
    private volatile Sample sample;
    private long lastWarning = Long.MIN_VALUE;
    private long reads;

    /** The database instant {@code db} seen at monotonic time {@code nanos}; {@code skew} = database minus node. */
    private record Sample(Instant db, long nanos, Duration skew) {
    }

    public PostgresClock(Jdbi jdbi, Clock node) {
        this(jdbi, node, System::nanoTime);
    }

    PostgresClock(Jdbi jdbi, Clock node, LongSupplier nanoTime) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.node = Objects.requireNonNull(node, "node");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    @Override
    public Instant instant() {
        Sample s = sample;
        long now = nanoTime.getAsLong();
        if (s == null || now - s.nanos() >= REFRESH.toNanos()) {
            s = refresh(s);
            now = Math.max(now, s.nanos());
        }
        return s.db().plusNanos(now - s.nanos());
    }

    /** The database's clock minus this node's at the last reading; zero before the first. */
    public Duration lastSkew() {
        Sample s = sample;
        return s == null ? Duration.ZERO : s.skew();
    }

    /** How many times the database clock was read. */
    synchronized long reads() {
        return reads;
    }

    private synchronized Sample refresh(Sample seen) {
        Sample current = sample;
        if (current != seen && current != null && nanoTime.getAsLong() - current.nanos() < REFRESH.toNanos()) {
            return current; // another thread read it meanwhile
        }
        long before = nanoTime.getAsLong();
        Instant nodeBefore = node.instant();
        Instant db;
        try {
            db = jdbi.withHandle(h -> h.createQuery("SELECT clock_timestamp()").mapTo(OffsetDateTime.class).one())
                    .toInstant();
        } catch (RuntimeException e) {
            if (current == null) {
                throw e;
            }
            LOG.debug("cannot read the database clock, extrapolating the last reading: {}", e.toString());
            return current;
        }
        long after = nanoTime.getAsLong();
        reads++;
        long half = (after - before) / 2;
        // the database read its clock somewhere in the round trip: assume its middle
        Instant dbAtAfter = db.plusNanos(after - before - half);
        Duration skew = Duration.between(nodeBefore.plusNanos(half), db);
        Sample fresh = new Sample(dbAtAfter, after, skew);
        sample = fresh;
        if (skew.abs().compareTo(SKEW_WARNING) > 0 && (lastWarning == Long.MIN_VALUE
                || after - lastWarning >= WARN_EVERY.toNanos())) {
            lastWarning = after;
            LOG.warn("this node's clock is {} ms {} the database's (more than {} s): due times follow the database; "
                            + "fix the node's time synchronisation (NTP)", skew.abs().toMillis(),
                    skew.isNegative() ? "ahead of" : "behind", SKEW_WARNING.toSeconds());
        }
        return fresh;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        if (ZoneOffset.UTC.equals(zone)) {
            return this;
        }
        throw new UnsupportedOperationException("the database clock is in UTC; convert instants instead");
    }
}
