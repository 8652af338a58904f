package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.application.testkit.OverlapContract;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunQueue;
import io.forgeflow.domain.port.RunRepository;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The overlap contract against PostgreSQL (JobSql/fireTick.sql): the fakes and the tick must agree. */
class PostgresOverlapContractIT extends OverlapContract {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);

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
}
