package io.forgeflow.application.run;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CancelRunTest {
    final Scenario s = new Scenario();
    final CancelRun cancel = s.cancelRun();

    Run pendingRun() {
        return s.onlyRunOf(s.submit(aDraft()).id());
    }

    @Test
    void aPendingRunIsCancelledAtOnce() {
        Run run = pendingRun();
        s.advance(Duration.ofSeconds(7));

        Run cancelled = cancel.cancel(run.id());

        assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(cancelled.finishedAt()).isEqualTo(s.clock.instant());
        assertThat(cancelled.error()).isEqualTo("cancelled by an operator");
        assertThat(s.run(run.id())).isEqualTo(cancelled);
        assertThat(s.store.queue().claim("w1", Scenario.ALL_EXECUTORS, 10, Scenario.LEASE)).isEmpty();
    }

    @Test
    void aRunningRunIsAskedToStopAndStaysRunningUntilItsWorkerStopsIt() {
        pendingRun();
        Run running = s.claim("w1");

        Run asked = cancel.cancel(running.id());

        assertThat(asked.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(asked.cancelRequested()).isTrue();
        assertThat(asked.workerId()).isEqualTo("w1");
        assertThat(s.store.queue().cancellationsFor("w1")).containsExactly(running.id());
    }

    @Test
    void cancellingARunningRunTwiceAsksOnce() {
        pendingRun();
        Run running = s.claim("w1");
        cancel.cancel(running.id());

        assertThat(cancel.cancel(running.id()).cancelRequested()).isTrue();
        assertThat(s.run(running.id()).status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void cancellingACancelledRunChangesNothing() {
        Run run = pendingRun();
        Run cancelled = cancel.cancel(run.id());
        s.advance(Duration.ofMinutes(1));

        assertThat(cancel.cancel(run.id())).isEqualTo(cancelled);
        assertThat(s.run(run.id())).isEqualTo(cancelled);
    }

    @Test
    void aSucceededRunCannotBeCancelled() {
        Run done = s.claimAndEnd(pendingRun(), RunStatus.SUCCEEDED);

        assertThatThrownBy(() -> cancel.cancel(done.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("succeeded");
        assertThat(s.run(done.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void aDeadRunCannotBeCancelled() {
        Run dead = s.claimAndEnd(pendingRun(), RunStatus.DEAD);

        assertThatThrownBy(() -> cancel.cancel(dead.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("dead");
        assertThat(s.run(dead.id()).status()).isEqualTo(RunStatus.DEAD);
    }

    @Test
    void cancellingAnUnknownRunIsNotFound() {
        assertThatThrownBy(() -> cancel.cancel(Ids.newId(s.clock.instant())))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("run");
    }

    @Test
    void aRunClaimedBetweenTheReadAndTheWriteIsAskedToStopInstead() {
        Run run = pendingRun();
        RunRepository claimFirst = new InterleavingRunRepository(s.store.runs())
                .beforeEachCancelPending(() -> s.claim("w1"));

        Run asked = new CancelRun(claimFirst).cancel(run.id());

        assertThat(asked.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(asked.cancelRequested()).isTrue();
    }

    @Test
    void aRunThatKeepsChangingUnderTheRequestIsAConflictAfterAFewTries() {
        Run run = pendingRun();
        // a claimer takes the run before each cancelPending; a draining worker gives it back before each requestCancel
        InterleavingRunRepository flapping = new InterleavingRunRepository(s.store.runs())
                .beforeEachCancelPending(() -> s.claim("w1"))
                .beforeEachRequestCancel(() -> s.store.queue().release(List.of(Scenario.fence(s.run(run.id())))));

        assertThatThrownBy(() -> new CancelRun(flapping).cancel(run.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("kept changing");
        assertThat(flapping.cancelPendingCalls.get()).isEqualTo(2);
    }
}
