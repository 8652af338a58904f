package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.job.Notice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** The notices outbox on PostgreSQL: a drain holds its notices; a concurrent drain skips them and never waits. */
class PostgresNoticeOutboxIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresNoticeOutbox outbox = new PostgresNoticeOutbox(pg.jdbi());

    void write(int n) {
        pg.jdbi().useHandle(h -> {
            for (int i = 0; i < n; i++) {
                h.execute("INSERT INTO notices (job_id, job_name, event, url, created_at) "
                        + "VALUES (gen_random_uuid(), 'j', 'dead', 'https://hooks.example.com/', now())");
            }
        });
    }

    @Test
    void aSecondDrainSkipsTheNoticesTheFirstHoldsAndGetsTheRest() throws Exception {
        write(5);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Long> first = new CopyOnWriteArrayList<>();
        List<Long> second = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                Future<Integer> slow = pool.submit(() -> outbox.drain(3, n -> {
                    first.add(n.id());
                    holding.countDown();
                    try {
                        return release.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }));
                assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

                assertThat(outbox.drain(10, n -> second.add(n.id()))).isEqualTo(2);

                release.countDown();
                assertThat(slow.get()).isEqualTo(3);
            });
        } finally {
            pool.shutdownNow();
        }
        assertThat(first).hasSize(3).doesNotContainAnyElementsOf(second);
        assertThat(second).hasSize(2);
        assertThat(outbox.pending(10)).isEmpty();
    }

    @Test
    void pendingListsTheOldestFirstWithEveryField() {
        write(2);
        List<Notice> pending = outbox.pending(10);

        assertThat(pending).hasSize(2);
        assertThat(pending.get(0).id()).isLessThan(pending.get(1).id());
        assertThat(pending.get(0).event()).isEqualTo("dead");
        assertThat(pending.get(0).url()).isEqualTo("https://hooks.example.com/");
        assertThat(pending.get(0).runId()).isNull();
        assertThat(pending.get(0).attempt()).isNull();
    }
}
