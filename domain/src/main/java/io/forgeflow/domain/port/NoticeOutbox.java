package io.forgeflow.domain.port;

import io.forgeflow.domain.job.Notice;

import java.util.List;
import java.util.function.Predicate;

/**
 * The outbox of notices (issue 45): the store writes a {@link Notice} in the transaction of the event itself (a run
 * of a job with {@code notify} ends dead, or succeeds after dead runs; the job is paused), so no event is lost and none
 * is written twice; the leader's {@code NoticeDispatcher} empties it.
 */
public interface NoticeOutbox {

    /**
     * Hands the oldest pending notices, at most {@code limit}, to {@code send} in id order, and removes each one it
     * returns true for, in one transaction that holds them ({@code FOR UPDATE SKIP LOCKED}): concurrent callers get
     * disjoint notices and never wait for each other. When {@code send} throws, nothing of the pass is removed and the
     * exception propagates (the notices are handed out again later; sending must therefore be idempotent).
     *
     * @return how many notices were removed
     */
    int drain(int limit, Predicate<Notice> send);

    /** The pending notices, oldest first, at most {@code limit}. */
    List<Notice> pending(int limit);
}
