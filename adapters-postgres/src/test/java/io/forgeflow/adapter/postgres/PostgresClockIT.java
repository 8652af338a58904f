package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.ds.PGSimpleDataSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PostgresClockIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    Instant databaseNow() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT clock_timestamp()").mapTo(OffsetDateTime.class).one())
                .toInstant();
    }

    @Test
    void aNodeWhoseClockIsAnHourAheadStillGetsTheDatabasesTimeAndSeesTheSkew() {
        Clock anHourAhead = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));
        PostgresClock clock = new PostgresClock(pg.jdbi(), anHourAhead);

        Instant before = databaseNow();
        Instant read = clock.instant();
        Instant after = databaseNow();

        // the clock assumes the database read its time in the middle of its round trip: off by up to half of it,
        // which the interval between the two reads around it bounds (CI, under load: 4.4 ms past the second read)
        Duration roundTrips = Duration.between(before, after);
        assertThat(read).isBetween(before.minus(roundTrips), after.plus(roundTrips));
        assertThat(clock.lastSkew()).isBetween(Duration.ofMinutes(-61), Duration.ofMinutes(-59));
    }

    @Test
    void theDatabaseIsReadAtMostOncePerSecondAndTheClockAdvancesOnTheMonotonicTimerBetween() {
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        PostgresClock clock = new PostgresClock(pg.jdbi(), Clock.systemUTC(), nanos::get);

        Instant first = clock.instant();
        nanos.addAndGet(400_000_000L);
        Instant second = clock.instant();
        nanos.addAndGet(599_999_999L);
        Instant third = clock.instant();

        assertThat(clock.reads()).isEqualTo(1);
        assertThat(Duration.between(first, second)).isEqualTo(Duration.ofMillis(400));
        assertThat(Duration.between(first, third)).isEqualTo(Duration.ofNanos(999_999_999L));

        nanos.addAndGet(1);
        Instant fourth = clock.instant();
        assertThat(clock.reads()).isEqualTo(2);
        assertThat(fourth).isAfterOrEqualTo(first);
        assertThat(clock.lastSkew().abs()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void anUnreachableDatabaseFailsTheFirstReadingAndLaterOnesExtrapolateTheLast() {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setURL("jdbc:postgresql://127.0.0.1:1/nowhere");
        nowhere.setConnectTimeout(2);
        assertThatThrownBy(() -> new PostgresClock(Jdbi.create(nowhere), Clock.systemUTC()).instant())
                .isInstanceOf(RuntimeException.class);

        AtomicLong nanos = new AtomicLong();
        PGSimpleDataSource flaky = new PGSimpleDataSource();
        flaky.setURL(pg.jdbcUrl());
        flaky.setUser(pg.user());
        PostgresClock clock = new PostgresClock(Jdbi.create(flaky), Clock.systemUTC(), nanos::get);
        Instant first = clock.instant();
        flaky.setURL("jdbc:postgresql://127.0.0.1:1/nowhere");
        nanos.addAndGet(Duration.ofSeconds(3).toNanos());

        assertThat(clock.instant()).isEqualTo(first.plusSeconds(3));
        assertThat(clock.reads()).isEqualTo(1);
    }
}
