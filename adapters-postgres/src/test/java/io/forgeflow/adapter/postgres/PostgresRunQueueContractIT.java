package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.application.testkit.RunQueueContract;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The RunQueue contract, against PostgreSQL: the fake and the real adapter must agree. */
class PostgresRunQueueContractIT extends RunQueueContract {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresNoticeOutbox notices = new PostgresNoticeOutbox(pg.jdbi());

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
    protected io.forgeflow.domain.port.NoticeOutbox notices() {
        return notices;
    }
}
