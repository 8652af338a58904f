package io.forgeflow.application.testkit;

import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;

class InMemoryRunQueueTest extends RunQueueContract {
    private final MutableClock clock = MutableClock.at("2025-01-01T00:00:00Z");
    private final InMemoryStore store = new InMemoryStore(clock);

    @Override
    protected MutableClock clock() {
        return clock;
    }

    @Override
    protected JobRepository jobs() {
        return store.jobs();
    }

    @Override
    protected RunRepository runs() {
        return store.runs();
    }

    @Override
    protected RunQueue queue() {
        return store.queue();
    }

    @Override
    protected io.forgeflow.domain.port.NoticeOutbox notices() {
        return store.notices();
    }
}
