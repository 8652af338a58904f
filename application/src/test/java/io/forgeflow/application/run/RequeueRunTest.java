package io.forgeflow.application.run;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequeueRunTest {
    final Scenario s = new Scenario();
    final RequeueRun requeue = new RequeueRun(s.store.runs(), s.store.jobs(), s.signal);

    /** A run of a job with max_attempts 2 that failed both attempts. */
    Run deadRun() {
        Job job = s.submit(aDraft().withMaxAttempts(2));
        Run run = s.onlyRunOf(job.id());
        s.claimAndEnd(run, RunStatus.PENDING);
        Run dead = s.claimAndEnd(run, RunStatus.DEAD);
        assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
        assertThat(dead.attempt()).isEqualTo(2);
        return dead;
    }

    @Nested
    class ADeadRun {
        @Test
        void goesBackToPendingDueNowWithAFreshBudgetOfItsJobsMaxAttempts() {
            Run dead = deadRun();
            s.advance(Duration.ofHours(1));
            s.signal.reset();

            Run requeued = requeue.requeue(dead.id());

            assertThat(requeued.status()).isEqualTo(RunStatus.PENDING);
            assertThat(requeued.scheduledFor()).isEqualTo(s.clock.instant());
            assertThat(requeued.attempt()).as("attempt numbers stay unique").isEqualTo(2);
            assertThat(requeued.maxAttempts()).isEqualTo(2 + 2);
            assertThat(requeued.finishedAt()).isNull();
            assertThat(s.store.runs().find(dead.id())).contains(requeued);
            assertThat(requeued.workerId()).as("the worker of its last attempt").isEqualTo(dead.workerId() == null
                    ? s.store.allAttempts().stream().filter(a -> a.runId().equals(dead.id()) && a.attempt() == 2)
                    .findFirst().orElseThrow().workerId() : dead.workerId());
            assertThat(s.signal.count()).isEqualTo(1);
        }

        @Test
        void keepsItsAttemptHistoryAndGetsItsFullBudgetOfNewAttempts() {
            Run dead = deadRun();
            requeue.requeue(dead.id());

            Run third = s.claim("w9");
            s.end(third, RunStatus.PENDING);
            Run fourth = s.claim("w9");
            Run deadAgain = s.end(fourth, RunStatus.DEAD);

            assertThat(third.attempt()).isEqualTo(3);
            assertThat(fourth.attempt()).isEqualTo(4);
            assertThat(deadAgain.status()).isEqualTo(RunStatus.DEAD);
            assertThat(s.attemptsOf(dead.id())).extracting(Attempt::attempt).containsExactly(1, 2, 3, 4);
            assertThat(s.attemptsOf(dead.id())).extracting(Attempt::outcome).containsOnly(AttemptOutcome.FAILED);
        }
    }

    @Test
    void aCancelledRunGoesBackToPending() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        Run run = s.triggerJob().trigger(job.id());
        s.cancelRun().cancel(run.id());
        s.advance(Duration.ofMinutes(1));

        Run requeued = requeue.requeue(run.id());

        assertThat(requeued.status()).isEqualTo(RunStatus.PENDING);
        assertThat(requeued.scheduledFor()).isEqualTo(s.clock.instant());
        assertThat(requeued.attempt()).isZero();
        assertThat(requeued.maxAttempts()).isEqualTo(job.spec().maxAttempts());
        assertThat(s.claim("w1").id()).isEqualTo(run.id());
    }

    @Test
    void aCancelledRunThatWasStoppedWhileRunningKeepsItsHistory() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        s.triggerJob().trigger(job.id());
        Run running = s.claim("w1");
        s.cancelRun().cancel(running.id());
        s.end(running, RunStatus.CANCELLED);

        Run requeued = requeue.requeue(running.id());

        assertThat(requeued.attempt()).isEqualTo(1);
        assertThat(requeued.maxAttempts()).isEqualTo(1 + job.spec().maxAttempts());
        assertThat(s.attemptsOf(running.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.CANCELLED);
    }

    @Test
    void aPendingRunCannotBeRequeued() {
        Run pending = s.onlyRunOf(s.submit(aDraft()).id());

        assertThatThrownBy(() -> requeue.requeue(pending.id()))
                .isInstanceOf(ConflictException.class).hasMessageContaining("pending");
        assertThat(s.signal.count()).as("only the submission woke workers").isEqualTo(1);
    }

    @Test
    void aRunningRunCannotBeRequeued() {
        s.submit(aDraft());
        Run running = s.claim("w1");

        assertThatThrownBy(() -> requeue.requeue(running.id())).isInstanceOf(ConflictException.class);
        assertThat(s.run(running.id()).status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void aSucceededRunCannotBeRequeued() {
        Run done = s.claimAndEnd(s.onlyRunOf(s.submit(aDraft()).id()), RunStatus.SUCCEEDED);

        assertThatThrownBy(() -> requeue.requeue(done.id())).isInstanceOf(ConflictException.class);
        assertThat(s.run(done.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
    }

    @Test
    void aRunOfACancelledJobCannotBeRequeued() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        Run run = s.triggerJob().trigger(job.id());
        Run dead = s.claimAndEnd(run, RunStatus.DEAD);
        s.cancelJob().cancel(job.id());

        assertThatThrownBy(() -> requeue.requeue(dead.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("cancelled for good");
        assertThat(s.run(dead.id()).status()).isEqualTo(RunStatus.DEAD);
    }

    @Test
    void requeuingAnUnknownRunIsNotFound() {
        assertThatThrownBy(() -> requeue.requeue(Ids.newId(s.clock.instant()))).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aRequeueThatRacesAnotherIsAConflictAndWakesNobody() {
        Run dead = deadRun();
        InterleavingRunRepository racing = new InterleavingRunRepository(s.store.runs())
                .beforeEachRequeue(() -> requeue.requeue(dead.id()));
        s.signal.reset();

        assertThatThrownBy(() -> new RequeueRun(racing, s.store.jobs(), s.signal).requeue(dead.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("changed while this request ran");
        assertThat(s.signal.count()).as("only the other requeue woke workers").isEqualTo(1);
        assertThat(s.run(dead.id()).maxAttempts()).as("one fresh budget, not two").isEqualTo(4);
    }
}
