package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.testkit.ListFiltersContract;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunRepository;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The list filters' contract against PostgreSQL (FilteredLists, migration 0013): the fakes and the database agree. */
class PostgresListFiltersContractIT extends ListFiltersContract {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);

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
}
