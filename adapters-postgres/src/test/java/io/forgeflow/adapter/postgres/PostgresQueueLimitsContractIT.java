package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.application.testkit.QueueLimitsContract;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;
import org.junit.jupiter.api.extension.RegisterExtension;


/** The queue-limits contract against PostgreSQL (forgeflow_claim and QueueSql): the fakes and the claim must agree. */
class PostgresQueueLimitsContractIT extends QueueLimitsContract {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresQueueRepository queues = new PostgresQueueRepository(pg.jdbi(), clock);

    @Override
    protected MutableClock clock() {
        return clock;
    }

    @Override
    protected JobRepository jobs() {
        return jobs;
    }

    @Override
    protected RunRepository runs() {
        return runs;
    }

    @Override
    protected RunQueue queue() {
        return queue;
    }

    @Override
    protected QueueRepository queues() {
        return queues;
    }
}
