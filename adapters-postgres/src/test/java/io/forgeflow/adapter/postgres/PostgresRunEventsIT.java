package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.JobRepository.RunCancellation;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class PostgresRunEventsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration WITHIN = Duration.ofSeconds(10);

    @Nested
    class AcrossNodes {
        static final String LISTENER_APP = "ff-events-listener-test";

        final PostgresRunEvents nodeA = new PostgresRunEvents(pg.connectionSupplier());
        final PostgresRunEvents nodeB = new PostgresRunEvents(
                DedicatedConnections.to(pg.jdbcUrl(), pg.user(), pg.password(), LISTENER_APP));
        final Recorder heardOnB = new Recorder();

        @AfterEach
        void close() {
            nodeA.close();
            nodeB.close();
        }

        @Test
        void aChangePublishedOnOneNodeReachesTheListenersOfAnother() {
            nodeB.subscribe(heardOnB);
            awaitListening(nodeA, heardOnB);
            RunChange change = change(RunStatus.RUNNING, "w1");

            nodeA.publish(List.of(change));

            Conditions.awaitTrue(() -> heardOnB.changes.contains(change), WITHIN, "node B hears the change");
        }

        @Test
        void thousandsOfChangesArriveInOrderInFewNotifications() {
            nodeB.subscribe(heardOnB);
            awaitListening(nodeA, heardOnB);
            List<RunChange> sent = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                sent.add(change(i % 2 == 0 ? RunStatus.RUNNING : RunStatus.SUCCEEDED, "worker-" + "w".repeat(40) + i));
            }
            long notificationsBefore = nodeA.notificationsSent();

            for (int i = 0; i < sent.size(); i += 50) {
                nodeA.publish(sent.subList(i, i + 50)); // as a worker would: one claim or ack batch at a time
            }

            Conditions.awaitTrue(() -> heardOnB.changes.containsAll(sent), WITHIN, "node B hears every change");
            List<RunChange> heard = new ArrayList<>(heardOnB.changes);
            heard.retainAll(sent);
            assertThat(heard).isEqualTo(sent);
            assertThat(nodeA.notificationsSent() - notificationsBefore).isLessThan(sent.size() / 10);
            assertThat(nodeA.publishedCount()).isGreaterThanOrEqualTo(sent.size());
        }

        @Test
        void thePublishingSessionCommitsWithoutWaitingForTheWalFlush() throws Exception {
            RecordingConnections recording = new RecordingConnections(pg);
            PostgresRunEvents publisher = new PostgresRunEvents(recording);
            try {
                nodeB.subscribe(heardOnB);
                awaitListening(publisher, heardOnB);

                assertThat(recording.handedOut).hasSize(1); // it never subscribed: the sending connection only
                assertThat(RecordingConnections.synchronousCommit(recording.handedOut.get(0)))
                        .isEqualTo("off, set by the session");
            } finally {
                publisher.close();
            }
        }

        @Test
        void aListenerWhoseConnectionDropsHearsOfTheGapAndThenHearsNewChanges() {
            nodeB.subscribe(heardOnB);
            awaitListening(nodeA, heardOnB);

            pg.jdbi().useHandle(h -> h.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    + "WHERE application_name = ? AND datname = current_database()", LISTENER_APP));

            Conditions.awaitTrue(() -> !heardOnB.gaps.isEmpty(), WITHIN, "node B reports a gap");
            assertThat(heardOnB.gaps.get(0)).contains("re-established");
            RunChange after = change(RunStatus.DEAD, "w2");
            nodeA.publish(List.of(after));
            Conditions.awaitTrue(() -> heardOnB.changes.contains(after), WITHIN, "node B hears the change after");
        }

        @Test
        void aNodeThatNeverSubscribesOpensNoListeningConnection() {
            nodeB.publish(List.of(change(RunStatus.PENDING, null)));
            Conditions.awaitTrue(() -> nodeB.notificationsSent() == 1, WITHIN, "the change is sent");

            long listening = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity "
                    + "WHERE application_name = :app AND datname = current_database() AND query ILIKE 'LISTEN%'")
                    .bind("app", LISTENER_APP)
                    .mapTo(Long.class).one());
            assertThat(listening).isZero();
        }

        /** Publishes probes until the listener hears one: LISTEN takes effect asynchronously after subscribe. */
        void awaitListening(PostgresRunEvents publisher, Recorder recorder) {
            RunChange probe = change(RunStatus.PENDING, "probe");
            Conditions.awaitTrue(() -> {
                publisher.publish(List.of(probe));
                return recorder.changes.contains(probe);
            }, WITHIN, "the listener is listening");
            recorder.changes.clear();
        }
    }

    /**
     * The job and run repositories publish nothing themselves: they return every run a call created or cancelled, as
     * committed, and the application publishes it (PublishedJobsTest). This is what they return.
     */
    @Nested
    class ReturnedByTheRepositories {
        final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
        final Instant now = clock.instant();
        final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
        final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);

        @Test
        void theApiAndTheSchedulerGetBackTheRunsTheyCreateOrCancel() {
            Job job = aJob().recurring("0 0 1 1 *", now.plusSeconds(3600)).build(); // cancelling its run keeps it active
            Run first = Run.pending(Ids.newId(now), job.id(), 3, 5, now, "noop", null, 60, now);
            assertThat(jobs.create(job, first).run()).extracting(Run::id, Run::status)
                    .containsExactly(first.id(), RunStatus.PENDING);

            Run triggered = runs.insert(Run.pending(Ids.newId(now), job.id(), 3, 5, now, "noop", null, 60, now));
            assertThat(runs.cancelPending(triggered.id(), "no")).get().extracting(Run::status)
                    .isEqualTo(RunStatus.CANCELLED);
            assertThat(runs.requeue(triggered.id(), 1)).get().extracting(Run::status).isEqualTo(RunStatus.PENDING);

            JobRepository.JobChange paused = jobs.changeStatus(job.id(), JobStatus.ACTIVE, JobStatus.PAUSED, null,
                    RunCancellation.PENDING, null).orElseThrow();
            assertThat(paused.job().status()).isEqualTo(JobStatus.PAUSED);
            assertThat(paused.runs()).extracting(Run::id, Run::status)
                    .containsExactlyInAnyOrder(tuple(first.id(), RunStatus.CANCELLED),
                            tuple(triggered.id(), RunStatus.CANCELLED));

            Run resumedWith = Run.pending(Ids.newId(now), job.id(), 3, 5, now, "noop", null, 60, now);
            assertThat(jobs.changeStatus(job.id(), JobStatus.PAUSED, JobStatus.ACTIVE, now.plusSeconds(60),
                    RunCancellation.NONE, resumedWith).orElseThrow().runs())
                    .extracting(Run::id, Run::status).containsExactly(tuple(resumedWith.id(), RunStatus.PENDING));
            assertThat(jobs.delete(job.id(), JobStatus.ACTIVE, false).orElseThrow().runs())
                    .extracting(Run::id, Run::status).containsExactly(tuple(resumedWith.id(), RunStatus.CANCELLED));
        }
    }

    static RunChange change(RunStatus status, String worker) {
        return new RunChange(UUID.randomUUID().toString(), UUID.randomUUID().toString(), status,
                status == RunStatus.PENDING ? 0 : 1, worker, Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    }

    static final class Recorder implements RunEvents.Listener {
        final List<RunChange> changes = new CopyOnWriteArrayList<>();
        final List<String> gaps = new CopyOnWriteArrayList<>();

        @Override
        public void changed(List<RunChange> batch) {
            changes.addAll(batch);
        }

        @Override
        public void gap(String reason) {
            gaps.add(reason);
        }
    }
}
