package io.forgeflow.application.event;

import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.RunChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * An api node's live feed of run changes ({@code /api/events}): it hears the cluster's changes
 * ({@link RunEvents}), numbers them with a sequence of its own, keeps the last {@code capacity} of them in a ring
 * buffer, and hands them to its subscribers (the open event streams).
 *
 * <p>Event ids are {@code <incarnation>-<sequence>}: the incarnation is random per feed (a restart or another node has
 * another), the sequence increases by one per event. A subscriber that comes back with the id of the last event it
 * saw ({@code Last-Event-ID}) is first given every event after it, when this feed still has them all; otherwise (an
 * id of another incarnation, older than the buffer, malformed, or from before a gap in the feed) it is given a
 * {@link Reset} instead, whose id is the feed's current position: the subscriber should re-read the state it shows.
 *
 * <p>Thread-safe. Subscribers are called under the feed's lock, in sequence order, and must not block (queue and
 * return).
 */
public final class RunEventFeed implements AutoCloseable {
    /** Events kept for replay by default. */
    public static final int DEFAULT_CAPACITY = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(RunEventFeed.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RunEvents source;
    private final String incarnation;
    private final Event[] ring;
    private final Set<Subscriber> subscribers = new LinkedHashSet<>();
    private long lastSequence;
    /** Events up to this sequence cannot be resumed from: changes were missed right after it. */
    private long gapAt;
    private AutoCloseable sourceSubscription;
    private boolean closed;

    /** A feed with a random incarnation. */
    public RunEventFeed(RunEvents source, int capacity) {
        this(source, capacity, randomIncarnation());
    }

    /** @param incarnation this feed's id prefix: letters and digits only */
    public RunEventFeed(RunEvents source, int capacity, String incarnation) {
        this.source = Objects.requireNonNull(source, "source");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        if (incarnation == null || !incarnation.matches("[A-Za-z0-9]+")) {
            throw new IllegalArgumentException("incarnation must be letters and digits, was " + incarnation);
        }
        this.ring = new Event[capacity];
        this.incarnation = incarnation;
    }

    /** Starts hearing the cluster's changes. */
    public synchronized void start() {
        if (sourceSubscription == null && !closed) {
            sourceSubscription = source.subscribe(new RunEvents.Listener() {
                @Override
                public void changed(List<RunChange> changes) {
                    append(changes);
                }

                @Override
                public void gap(String reason) {
                    markGap(reason);
                }
            });
        }
    }

    /**
     * Subscribes, resuming after {@code lastEventId} when given (null or blank: from now on). Before this returns,
     * the subscriber has been given the events it missed, or a {@link Reset} when they cannot be replayed; then it
     * gets every new event. A closed feed calls {@link Subscriber#closed()} at once.
     */
    public synchronized Subscription subscribe(String lastEventId, Subscriber subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        if (closed) {
            subscriber.closed();
            return () -> { };
        }
        if (lastEventId != null && !lastEventId.isBlank()) {
            String problem = replayProblem(lastEventId.trim());
            if (problem == null) {
                long from = sequenceOf(lastEventId.trim());
                if (from < lastSequence) {
                    List<Event> missed = new ArrayList<>((int) (lastSequence - from));
                    for (long s = from + 1; s <= lastSequence; s++) {
                        missed.add(ring[slot(s)]);
                    }
                    subscriber.events(missed);
                }
            } else {
                subscriber.reset(new Reset(currentId(), problem));
            }
        }
        subscribers.add(subscriber);
        return () -> unsubscribe(subscriber);
    }

    /** The id of the newest event ({@code <incarnation>-0} before the first). */
    public synchronized String currentId() {
        return incarnation + "-" + lastSequence;
    }

    /** Open subscriptions. */
    public synchronized int subscriberCount() {
        return subscribers.size();
    }

    /** Events numbered so far. */
    public synchronized long lastSequence() {
        return lastSequence;
    }

    /** Stops hearing changes and tells every subscriber that the feed closed. Idempotent. */
    @Override
    public void close() {
        List<Subscriber> toClose;
        AutoCloseable subscription;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(subscribers);
            subscribers.clear();
            subscription = sourceSubscription;
            sourceSubscription = null;
        }
        if (subscription != null) {
            try {
                subscription.close();
            } catch (Exception e) {
                LOG.debug("closing the run event subscription failed: {}", e.toString());
            }
        }
        for (Subscriber subscriber : toClose) {
            try {
                subscriber.closed();
            } catch (RuntimeException e) {
                LOG.debug("an event subscriber failed to close: {}", e.toString());
            }
        }
    }

    /** Numbers and keeps changes, then hands them to every subscriber. */
    synchronized void append(List<RunChange> changes) {
        if (closed || changes.isEmpty()) {
            return;
        }
        List<Event> batch = new ArrayList<>(changes.size());
        for (RunChange change : changes) {
            long sequence = ++lastSequence;
            Event event = new Event(incarnation + "-" + sequence, sequence, change);
            ring[slot(sequence)] = event;
            batch.add(event);
        }
        List<Event> delivered = List.copyOf(batch);
        for (Subscriber subscriber : new ArrayList<>(subscribers)) {
            try {
                subscriber.events(delivered);
            } catch (RuntimeException e) {
                LOG.warn("dropping an event subscriber that failed: {}", e.toString());
                subscribers.remove(subscriber);
            }
        }
    }

    /** Changes may have been missed: no replay reaches back past this point, and every subscriber is told. */
    synchronized void markGap(String reason) {
        if (closed) {
            return;
        }
        gapAt = lastSequence;
        Reset reset = new Reset(currentId(), "events may have been missed: " + reason);
        for (Subscriber subscriber : new ArrayList<>(subscribers)) {
            try {
                subscriber.reset(reset);
            } catch (RuntimeException e) {
                subscribers.remove(subscriber);
            }
        }
    }

    private synchronized void unsubscribe(Subscriber subscriber) {
        subscribers.remove(subscriber);
    }

    /** Null when every event after {@code id} can be replayed; otherwise why not. */
    private String replayProblem(String id) {
        long sequence = sequenceOf(id);
        if (sequence < 0) {
            return "event id " + shorten(id) + " was not issued by this server (or it restarted since): "
                    + "re-read the state you show";
        }
        if (sequence > lastSequence) {
            return "event id " + shorten(id) + " is ahead of this server's feed: re-read the state you show";
        }
        long oldestKept = Math.max(1, lastSequence - ring.length + 1);
        if (sequence < oldestKept - 1) {
            return "event id " + shorten(id) + " is older than the last " + ring.length
                    + " events this server keeps: re-read the state you show";
        }
        if (sequence < gapAt) {
            return "events after " + shorten(id) + " may have been missed by this server: re-read the state you show";
        }
        return null;
    }

    /** The sequence of an id of this incarnation, or -1. */
    private long sequenceOf(String id) {
        int dash = id.lastIndexOf('-');
        if (dash <= 0 || !id.substring(0, dash).equals(incarnation)) {
            return -1;
        }
        String digits = id.substring(dash + 1);
        if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(digits);
    }

    private int slot(long sequence) {
        return (int) (sequence % ring.length);
    }

    private static String shorten(String id) {
        return id.length() > 64 ? id.substring(0, 64) + "..." : id;
    }

    private static String randomIncarnation() {
        return Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36).toLowerCase(Locale.ROOT);
    }

    /** One run change as this feed numbered it. */
    public record Event(String id, long sequence, RunChange change) {
    }

    /**
     * The subscriber cannot be given what it missed (or missed something just now): it should re-read the state it
     * shows. {@code id} is the feed's current position, to resume from.
     */
    public record Reset(String id, String reason) {
    }

    /** An open event stream. Called under the feed's lock: queue and return, never block. */
    public interface Subscriber {
        /** New events (or, right after subscribing, the missed ones), in sequence order. */
        void events(List<Event> events);

        /** What was missed cannot be replayed. */
        void reset(Reset reset);

        /** The feed stopped (the node is shutting down). */
        void closed();
    }

    /** Ends a subscription; idempotent. */
    @FunctionalInterface
    public interface Subscription extends AutoCloseable {
        @Override
        void close();
    }
}
