package io.forgeflow.server;

import io.forgeflow.adapter.executor.ShellRunExecutor;
import io.forgeflow.adapter.postgres.PostgresRunQueue;
import io.forgeflow.adapter.postgres.PostgresRunRepository;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestJobs;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.run.CancelRun;
import io.forgeflow.application.testkit.CountingWorkSignal;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.application.worker.Worker;
import io.forgeflow.application.worker.WorkerSettings;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real worker on PostgreSQL with real shell processes claims again a run whose older attempt it still executes (it
 * paused past its lease: the database's clock, a test clock here, moved on while the worker did nothing): the older
 * attempt's process is killed before the new one starts, only the new attempt is acknowledged, and an operator's
 * cancel reaches the current attempt. Each attempt's shell writes its pid to a file; the second attempt's first line
 * checks whether the first attempt's process is still alive.
 */
class WorkerReclaimIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);

    final MutableClock clock = MutableClock.at("2026-03-01T00:00:00Z");
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);
    final LeaseRescuer rescuer = new LeaseRescuer(queue, FakeLeaderElection.leading(),
            new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1)), null);
    final Worker worker = new Worker(new WorkerSettings("w1", 2, Duration.ofSeconds(1), LEASE, Duration.ofSeconds(10),
            Duration.ZERO, 64 * 1024, new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(1))), queue,
            new ExecutorRegistry(List.of(new ShellRunExecutor()), Set.of()), new CountingWorkSignal(),
            new SplittableRandom(1), null);

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        worker.stop();
    }

    /**
     * A shell job: records its pid; the first attempt sleeps a minute; a later one notes whether the first attempt's
     * process still lives, then finishes at once, or sleeps a minute too when {@code laterSleeps}.
     */
    Run seed(boolean laterSleeps) {
        Path pids = dir.resolve("pids");
        String command = "echo $$ >> " + pids + "; "
                + "if [ \"$FORGEFLOW_ATTEMPT\" = 1 ]; then exec sleep 60; fi; "
                + "if kill -0 $(head -n 1 " + pids + ") 2>/dev/null; then echo overlap > " + dir.resolve("overlap")
                + "; fi; " + (laterSleeps ? "exec sleep 60" : "echo attempt $FORGEFLOW_ATTEMPT");
        Instant due = clock.instant().minusSeconds(1);
        String jobId = pg.insert(TestJobs.aJob()).id();
        return pg.insert(Run.pending(Ids.newId(due), jobId, 3, 5, due, "shell", Map.of("command", command), 300, due));
    }

    /** Attempt 1 runs; the database's clock passes its lease; the leader gives the run back; w1 claims it again. */
    Run reclaimedWhileAttemptOneRuns(boolean laterSleeps) throws Exception {
        Run run = seed(laterSleeps);
        assertThat(worker.claimOnce()).isEqualTo(1);
        WorkerFaultsIT.await(Duration.ofSeconds(20), () -> pids().size() == 1);
        long first = pids().get(0);
        assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive)).contains(true);

        clock.advance(LEASE.plusSeconds(1));
        assertThat(rescuer.runOnce()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        worker.heartbeatOnce();        // the leader ended its holder: attempt 1 is stopped, a new incarnation claims
        assertThat(worker.claimOnce()).as("the same worker takes the run again, as attempt 2").isEqualTo(1);

        WorkerFaultsIT.await(Duration.ofSeconds(20), () -> pids().size() == 2);
        assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false))
                .as("attempt 1's process is gone").isFalse();
        assertThat(dir.resolve("overlap")).as("attempt 2 never saw attempt 1's process alive").doesNotExist();
        return run;
    }

    @Test
    void theOlderAttemptsProcessIsKilledFirstAndOnlyTheNewAttemptSucceeds() throws Exception {
        Run run = reclaimedWhileAttemptOneRuns(false);

        WorkerFaultsIT.await(Duration.ofSeconds(20), () -> worker.busySlots() == 0);
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);

        Run done = runs.find(run.id()).orElseThrow();
        assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(done.output()).contains("attempt 2");
        assertThat(runs.attempts(run.id())).extracting(Attempt::outcome)
                .containsExactly(AttemptOutcome.LEASE_EXPIRED, AttemptOutcome.SUCCEEDED);
    }

    @Test
    void anOperatorsCancelReachesTheCurrentAttempt() throws Exception {
        Run run = reclaimedWhileAttemptOneRuns(true);
        long second = pids().get(1);

        new CancelRun(runs).cancel(run.id());
        worker.heartbeatOnce();

        WorkerFaultsIT.await(Duration.ofSeconds(20), () -> worker.busySlots() == 0);
        assertThat(ProcessHandle.of(second).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(worker.flushAcknowledgements()).isEqualTo(1);
        assertThat(runs.find(run.id()).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runs.attempts(run.id())).extracting(Attempt::outcome)
                .containsExactly(AttemptOutcome.LEASE_EXPIRED, AttemptOutcome.CANCELLED);
    }

    List<Long> pids() {
        try {
            Path file = dir.resolve("pids");
            return Files.exists(file) ? Files.readAllLines(file).stream().filter(l -> !l.isBlank())
                    .map(Long::parseLong).toList() : List.of();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
