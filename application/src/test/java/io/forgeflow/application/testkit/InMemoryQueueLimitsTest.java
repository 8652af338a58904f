package io.forgeflow.application.testkit;

import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;

/** The queue-limits contract against the fakes: they must mean what the Postgres claim does. */
class InMemoryQueueLimitsTest extends QueueLimitsContract {
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
    protected QueueRepository queues() {
        return store.queues();
    }
}
