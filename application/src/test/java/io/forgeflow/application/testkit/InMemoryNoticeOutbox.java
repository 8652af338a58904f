package io.forgeflow.application.testkit;

import io.forgeflow.domain.job.Notice;
import io.forgeflow.domain.port.NoticeOutbox;

import java.util.List;
import java.util.function.Predicate;

/**
 * {@link NoticeOutbox} over an {@link InMemoryStore}: the store's monitor is the transaction, so a drain holds every
 * notice for its whole duration (no second drain sees them), and a send that throws removes nothing.
 */
public final class InMemoryNoticeOutbox implements NoticeOutbox {
    private final InMemoryStore store;

    InMemoryNoticeOutbox(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public int drain(int limit, Predicate<Notice> send) {
        synchronized (store) {
            List<Notice> held = List.copyOf(store.notices.subList(0, Math.min(limit, store.notices.size())));
            List<Notice> sent = held.stream().filter(send).toList();
            store.notices.removeAll(sent);
            return sent.size();
        }
    }

    @Override
    public List<Notice> pending(int limit) {
        synchronized (store) {
            return List.copyOf(store.notices.subList(0, Math.min(limit, store.notices.size())));
        }
    }
}
