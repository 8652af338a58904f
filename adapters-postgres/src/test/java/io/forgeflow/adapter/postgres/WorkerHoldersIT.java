package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.PsqlSession;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.ExpiredLease;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.port.RunQueue.Heartbeat;
import io.forgeflow.domain.port.WorkerHolder;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static io.forgeflow.adapter.postgres.testing.TestRuns.aRun;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 37: a worker's writes are fenced by its holder (label and incarnation), not by its label; the heartbeat waits
 * on no lock an application or an operator holds (a {@code psql} session plays them); a holder the leader ended is
 * dead for good.
 */
class WorkerHoldersIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Set<String> NOOP = Set.of("noop");
    static final String APPLICATION = "forgeflow-test-application";

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
    final List<PsqlSession> sessions = new ArrayList<>();

    @AfterEach
    void endSessions() throws InterruptedException {
        for (PsqlSession session : sessions) {
            session.close();
        }
    }

    @Test
    void twoProcessesWithOneLabelNeitherReleaseNorAcknowledgeEachOthersRuns() {
        Run a = pg.insert(aRun().dueAt(now.minusSeconds(2)));
        Run b = pg.insert(aRun().dueAt(now.minusSeconds(1)));
        String first = WorkerHolder.next("node-1");
        String second = WorkerHolder.next("node-1");
        assertThat(queue.claim(first, NOOP, 1, LEASE)).extracting(Run::id).containsExactly(a.id());
        assertThat(queue.claim(second, NOOP, 1, LEASE)).extracting(Run::id).containsExactly(b.id());

        Heartbeat beat = queue.heartbeat(first, List.of(new RunFence(a.id(), first, 1)), LEASE);

        assertThat(beat.extended()).containsExactly(new RunFence(a.id(), first, 1));
        assertThat(beat.unheld()).as("the other process's run is not this one's to release").isEmpty();
        assertThat(queue.release(List.of(new RunFence(b.id(), first, 1)))).isEmpty();
        assertThat(queue.acknowledge(List.of(succeeded(new RunFence(b.id(), first, 1))))).isEmpty();
        assertThat(runs.find(b.id()).orElseThrow()).satisfies(run -> {
            assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(run.workerId()).as("people read the label").isEqualTo("node-1");
        });
        assertThat(queue.acknowledge(List.of(succeeded(new RunFence(b.id(), second, 1)))))
                .containsExactly(new RunFence(b.id(), second, 1));
        assertThat(runs.attempts(b.id())).singleElement().satisfies(attempt -> {
            assertThat(attempt.workerId()).isEqualTo("node-1");
            assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
        });
    }

    @Test
    void aHeartbeatDoesNotWaitForARunRowAnApplicationHoldsLockedAndStillConfirmsIt() throws Exception {
        Run run = pg.insert(aRun().dueAt(now.minusSeconds(1)));
        String holder = WorkerHolder.next("node-1");
        queue.claim(holder, NOOP, 1, LEASE);
        holdLocked("SELECT 1 FROM runs WHERE id = '" + run.id() + "' FOR UPDATE");

        Heartbeat beat = assertTimeoutPreemptively(Duration.ofSeconds(3),
                () -> queue.heartbeat(holder, List.of(new RunFence(run.id(), holder, 1)), LEASE),
                "the heartbeat waited for the application's lock");

        assertThat(beat.alive()).isTrue();
        assertThat(beat.extended()).containsExactly(new RunFence(run.id(), holder, 1));
    }

    @Test
    void aRunWhoseOwnLeaseLapsedWhileLockedIsNotRecoveredWhileItsHolderHeartbeats() throws Exception {
        Run run = pg.insert(aRun().dueAt(now.minusSeconds(1)));
        String holder = WorkerHolder.next("node-1");
        queue.claim(holder, NOOP, 1, LEASE);
        holdLocked("SELECT 1 FROM runs WHERE id = '" + run.id() + "' FOR SHARE");
        for (int i = 0; i < 4; i++) {                  // 40 s of heartbeats: the run's own lease is never extended
            clock.advance(Duration.ofSeconds(10));
            assertTimeoutPreemptively(Duration.ofSeconds(3),
                    () -> queue.heartbeat(holder, List.of(new RunFence(run.id(), holder, 1)), LEASE));
        }
        assertThat(runs.find(run.id()).orElseThrow().leaseExpiresAt()).isBefore(clock.instant());

        assertThat(queue.expiredLeases(10)).as("its holder is alive").isEmpty();
    }

    @Test
    void theLeadersRecoverySkipsARunSomeoneHoldsLockedAndRecoversTheOthers() throws Exception {
        Run locked = pg.insert(aRun().running().leasedBy("gone").leaseUntil(now.minusSeconds(5)));
        Run free = pg.insert(aRun().running().leasedBy("gone").leaseUntil(now.minusSeconds(4)));
        holdLocked("SELECT 1 FROM runs WHERE id = '" + locked.id() + "' FOR UPDATE");
        List<ExpiredLease> expired = queue.expiredLeases(10);
        assertThat(expired).hasSize(2);
        OutcomePolicy policy = new OutcomePolicy(RetryPolicy.DEFAULT, new SplittableRandom(1));

        var applied = assertTimeoutPreemptively(Duration.ofSeconds(3),
                () -> queue.recover(expired.stream().map(policy::afterExpiredLease).toList()));

        assertThat(applied).containsExactly(new RunFence(free.id(), "gone", 1));
        assertThat(runs.find(locked.id()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void aHolderTheLeaderEndedCanNeitherHeartbeatNorClaimAgain() {
        Run run = pg.insert(aRun().dueAt(now.minusSeconds(1)));
        String holder = WorkerHolder.next("node-1");
        queue.claim(holder, NOOP, 1, LEASE);
        clock.advance(LEASE.plusSeconds(1));                // frozen for a whole lease

        List<ExpiredLease> expired = queue.expiredLeases(10);
        assertThat(expired).extracting(lease -> lease.fence().runId()).containsExactly(run.id());
        OutcomePolicy policy = new OutcomePolicy(RetryPolicy.DEFAULT, new SplittableRandom(1));
        assertThat(queue.recover(expired.stream().map(policy::afterExpiredLease).toList())).hasSize(1);
        clock.advance(Duration.ofSeconds(1));
        pg.insert(aRun().dueAt(clock.instant().minusSeconds(1)));

        Heartbeat beat = queue.heartbeat(holder, List.of(new RunFence(run.id(), holder, 1)), LEASE);
        assertThat(beat.alive()).isFalse();
        assertThat(beat.extended()).isEmpty();
        assertThat(queue.claim(holder, NOOP, 5, LEASE)).isEmpty();
        assertThat(queue.claim(WorkerHolder.next("node-1"), NOOP, 5, LEASE)).as("its next incarnation claims").hasSize(1);
    }

    @Test
    void aHeartbeatBetweenTheLeadersReadAndItsRecoveryKeepsTheRun() {
        Run run = pg.insert(aRun().dueAt(now.minusSeconds(1)));
        String holder = WorkerHolder.next("node-1");
        queue.claim(holder, NOOP, 1, LEASE);
        clock.advance(LEASE.plusSeconds(1));
        List<ExpiredLease> expired = queue.expiredLeases(10);
        assertThat(expired).hasSize(1);

        queue.heartbeat(holder, List.of(new RunFence(run.id(), holder, 1)), LEASE);
        OutcomePolicy policy = new OutcomePolicy(RetryPolicy.DEFAULT, new SplittableRandom(1));

        assertThat(queue.recover(expired.stream().map(policy::afterExpiredLease).toList())).isEmpty();
        assertThat(runs.find(run.id()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void aHolderHeardBeforeTheLeaderEndsItKeepsItsRunsAfterItsLeaseLapsed() {
        Run run = pg.insert(aRun().dueAt(now.minusSeconds(1)));
        String holder = WorkerHolder.next("node-1");
        queue.claim(holder, NOOP, 1, LEASE);
        clock.advance(LEASE.plusSeconds(5));                // the database was away: no one could be heard

        Heartbeat beat = queue.heartbeat(holder, List.of(new RunFence(run.id(), holder, 1)), LEASE);

        assertThat(beat.alive()).isTrue();
        assertThat(beat.extended()).containsExactly(new RunFence(run.id(), holder, 1));
        assertThat(queue.expiredLeases(10)).isEmpty();
    }

    private static Acknowledgement succeeded(RunFence fence) {
        return new Acknowledgement(fence, AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED, Duration.ZERO, "", null);
    }

    /** A psql session, as an application or an operator: takes the lock, then keeps its transaction open. */
    private void holdLocked(String statement) throws IOException, InterruptedException {
        String schema = pg.jdbi().withHandle(h -> h.createQuery("SELECT current_schema()").mapTo(String.class).one());
        sessions.add(PsqlSession.hold(pg, APPLICATION, "SET LOCAL search_path = " + schema + ";\n" + statement, 60));
    }
}
