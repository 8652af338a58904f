package io.forgeflow.application.worker;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.application.testkit.FakeExecutor;
import io.forgeflow.application.testkit.JobDrafts;
import io.forgeflow.application.testkit.RunTransitions;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class WorkerTest {
    static final RetryPolicy RETRY = new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15));

    final Scenario s = new Scenario();
    final ScriptedRunQueue queue = new ScriptedRunQueue(s.store.queue());
    final RecordingListener listener = new RecordingListener();
    final ExtremeRandom highestDelay = ExtremeRandom.highest();
    final Gate gate = new Gate();
    final List<Worker> started = new ArrayList<>();

    @AfterEach
    void stopEveryWorker() {
        queue.recover();
        gate.open();
        started.forEach(Worker::stop);
    }

    /** w1: 2 slots, lease 30 s, heartbeat every 10 s, drain grace 200 ms, 1 KiB of output. */
    static WorkerSettings settings() {
        return settings(2, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofMillis(200));
    }

    static WorkerSettings settings(int concurrency, Duration lease, Duration heartbeat, Duration drainGrace) {
        return new WorkerSettings("w1", concurrency, Duration.ofSeconds(1), lease, heartbeat, drainGrace, 1024, RETRY);
    }

    Worker worker(WorkerSettings settings) {
        return worker(settings, s.executors, highestDelay);
    }

    Worker worker(WorkerSettings settings, ExecutorRegistry executors, RandomGenerator random) {
        Worker worker = new Worker(settings, queue, executors, s.signal, random, listener);
        started.add(worker);
        return worker;
    }

    Run pendingRun(JobDrafts draft) {
        return s.onlyRunOf(s.submit(draft).id());
    }

    /** The context the shell executor was given for this run's (only) execution. */
    ExecutionContext executionOf(Run run) {
        return s.shell.executions().stream().filter(ctx -> ctx.runId().equals(run.id())).findFirst()
                .orElseThrow(() -> new AssertionError("run " + run.id() + " was never executed"));
    }

    static void awaitIdle(Worker worker) {
        Await.until("every execution slot of " + worker.workerId() + " is free", () -> worker.busySlots() == 0);
    }

    /** Runs until its executor returns, then acknowledges; returns the run as stored afterwards. */
    Run finishAndAcknowledge(Worker worker, Run run) {
        awaitIdle(worker);
        assertThat(worker.flushAcknowledgements()).isPositive();
        return s.run(run.id());
    }

    @Nested
    class Claiming {
        @Test
        void claimsAtMostAsManyRunsAsItHasSlotsAndMoreOnceASlotFrees() {
            s.shell.byDefault(gate.then(ExecutionResult.succeeded("done")));
            for (int i = 0; i < 3; i++) {
                s.submit(aDraft());
            }
            Worker worker = worker(settings());

            assertThat(worker.claimOnce()).isEqualTo(2);
            Await.until("both runs are executing", () -> gate.entered() == 2);
            assertThat(worker.busySlots()).isEqualTo(2);
            assertThat(worker.claimOnce()).as("no free slot").isZero();
            assertThat(s.store.allRuns()).filteredOn(r -> r.status() == RunStatus.RUNNING).hasSize(2);

            gate.open();
            awaitIdle(worker);
            assertThat(worker.flushAcknowledgements()).isEqualTo(2);
            assertThat(worker.claimOnce()).isEqualTo(1);
            awaitIdle(worker);
            worker.flushAcknowledgements();

            assertThat(s.store.allRuns()).extracting(Run::status).containsOnly(RunStatus.SUCCEEDED);
            assertThat(queue.claimedWithExecutors).hasSize(2);
        }

        @Test
        void asksOnlyForRunsOfTheExecutorsEnabledHereAndNeverClaimsOthers() {
            ExecutorRegistry shellOnly = new ExecutorRegistry(List.of(s.shell, s.http), Set.of("shell"));
            Run httpRun = pendingRun(aDraft().withExecutor("http"));
            Worker worker = worker(settings(), shellOnly, highestDelay);

            assertThat(worker.claimOnce()).isZero();
            Run shellRun = pendingRun(aDraft());
            assertThat(worker.claimOnce()).isEqualTo(1);
            finishAndAcknowledge(worker, shellRun);

            assertThat(queue.claimedWithExecutors).containsOnly(Set.of("shell"));
            assertThat(s.run(httpRun.id()).status()).isEqualTo(RunStatus.PENDING);
            assertThat(s.http.executions()).isEmpty();
            assertThat(s.run(shellRun.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
        }

        @Test
        void claimsNothingThatIsNotDueYet() {
            pendingRun(aDraft().runAt(s.clock.instant().plusSeconds(60)));
            Worker worker = worker(settings());

            assertThat(worker.claimOnce()).isZero();
            assertThat(listener.claims).containsExactly(List.of());
        }

        @Test
        void flushingWithNothingFinishedSendsNothing() {
            Worker worker = worker(settings());

            assertThat(worker.flushAcknowledgements()).isZero();
            assertThat(queue.acknowledgementsSent).isEmpty();
        }
    }

    @Nested
    class Outcomes {
        @Test
        void aSuccessIsAcknowledgedAsSucceededWithItsOutput() {
            s.shell.thenReturn(ExecutionResult.succeeded("all good"));
            Run run = pendingRun(aDraft().withPayload(Map.of("command", "make report")).withTimeoutSeconds(77));
            Worker worker = worker(settings());

            worker.claimOnce();
            Run done = finishAndAcknowledge(worker, run);

            assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(done.output()).isEqualTo("all good");
            assertThat(done.error()).isNull();
            assertThat(done.finishedAt()).isEqualTo(s.clock.instant());
            assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.SUCCEEDED);
            assertThat(s.job(run.jobId()).status()).isEqualTo(JobStatus.COMPLETED);
            assertThat(listener.finished).containsExactly(
                    new RecordingListener.Finished(run.id(), AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED));
            ExecutionContext ctx = s.shell.executions().get(0);
            assertThat(ctx.runId()).isEqualTo(run.id());
            assertThat(ctx.jobId()).isEqualTo(run.jobId());
            assertThat(ctx.attempt()).isEqualTo(1);
            assertThat(ctx.payload()).isEqualTo(Map.of("command", "make report"));
            assertThat(ctx.timeout()).isEqualTo(Duration.ofSeconds(77));
            assertThat(ctx.maxOutputBytes()).isEqualTo(1024);
        }

        @Test
        void theExecutorIsGivenTheAttemptSpansTraceparentAndTracestate() {
            s.shell.thenReturn(ExecutionResult.succeeded(""));
            Run run = pendingRun(aDraft());
            io.forgeflow.domain.trace.TraceContext attempt = new io.forgeflow.domain.trace.TraceContext(
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=abc");
            io.forgeflow.application.trace.Tracing tracing = new io.forgeflow.application.trace.Tracing() {
                @Override
                public Span attempt(Run claimed, String workerId) {
                    return Span.of(attempt);
                }
            };
            Worker worker = new Worker(settings(), queue, s.executors, s.signal, highestDelay, listener,
                    new BatchPacer(0, 0, 0), new BatchPacer(0, 0, 0), new TestTicker(),
                    io.forgeflow.application.event.RunChanges.NONE, tracing);
            started.add(worker);

            worker.claimOnce();
            finishAndAcknowledge(worker, run);

            ExecutionContext ctx = executionOf(run);
            assertThat(ctx.traceparent()).isEqualTo(attempt.traceparent());
            assertThat(ctx.tracestate()).isEqualTo("vendor=abc");
        }

        @Test
        void anUntracedAttemptGivesTheExecutorNoTraceContext() {
            s.shell.thenReturn(ExecutionResult.succeeded(""));
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings());

            worker.claimOnce();
            finishAndAcknowledge(worker, run);

            assertThat(executionOf(run).traceparent()).isNull();
            assertThat(executionOf(run).tracestate()).isNull();
        }

        @Test
        void aPayloadItsExecutorRefusesFailsTheAttemptWithTheExecutorsMessageWithoutExecutingIt() {
            // as enqueue() in SQL stores it: a plug-in executor's payload is first checked by its Java code here
            java.time.Instant now = s.clock.instant();
            String jobId = io.forgeflow.domain.id.Ids.newId(now);
            io.forgeflow.domain.job.JobSpec spec = aDraft().withPayload(Map.of("bad", 1)).withMaxAttempts(1).build()
                    .validate();
            Run run = Run.pending(io.forgeflow.domain.id.Ids.newId(now), jobId, 1, spec.priority(), now,
                    spec.executor(), spec.payload(), spec.timeoutSeconds(), now);
            s.store.jobs().create(new io.forgeflow.domain.job.Job(jobId, spec, io.forgeflow.domain.job.JobStatus.ACTIVE,
                    now, now, now, io.forgeflow.domain.job.Job.VIA_SQL), run);
            Worker worker = worker(settings());

            worker.claimOnce();
            Run dead = finishAndAcknowledge(worker, run);

            assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
            assertThat(dead.error()).isEqualTo("invalid payload: payload.bad is not accepted by executor 'shell': remove it");
            assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.FAILED);
            assertThat(s.shell.executions()).isEmpty();
        }

        @Test
        void aFailureWithAttemptsLeftGoesBackToPendingAfterAJitteredDelayWithinTheCeiling() {
            s.shell.thenReturn(ExecutionResult.failed("partial", "exit code 1"),
                    ExecutionResult.failed("partial", "exit code 2"));
            Run run = pendingRun(aDraft().withMaxAttempts(3));
            Worker worker = worker(settings());

            worker.claimOnce();
            Run retry = finishAndAcknowledge(worker, run);

            assertThat(retry.status()).isEqualTo(RunStatus.PENDING);
            assertThat(retry.error()).isEqualTo("exit code 1");
            assertThat(retry.output()).isEqualTo("partial");
            assertThat(retry.scheduledFor()).as("the highest draw: the ceiling after attempt 1, 5 s")
                    .isEqualTo(s.clock.instant().plusSeconds(5));
            assertThat(highestDelay.bounds).as("drawn from [0, 5000] ms").containsExactly(5_001L);
            assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.FAILED);

            s.advance(Duration.ofSeconds(5));
            worker.claimOnce();
            Run secondRetry = finishAndAcknowledge(worker, run);

            assertThat(secondRetry.scheduledFor()).as("the ceiling after attempt 2 is 10 s")
                    .isEqualTo(s.clock.instant().plusSeconds(10));
            assertThat(highestDelay.bounds).containsExactly(5_001L, 10_001L);
            assertThat(listener.finished).extracting(RecordingListener.Finished::next)
                    .containsExactly(RunStatus.PENDING, RunStatus.PENDING);
        }

        @Test
        void theLowestDrawRetriesAtOnce() {
            s.shell.thenReturn(ExecutionResult.failed("", "exit code 1"));
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings(), s.executors, ExtremeRandom.lowest());

            worker.claimOnce();

            assertThat(finishAndAcknowledge(worker, run).scheduledFor()).isEqualTo(s.clock.instant());
        }

        @Test
        void aFailedLastAttemptIsDeadLettered() {
            s.shell.thenReturn(ExecutionResult.failed("tail", "exit code 3"));
            Run run = pendingRun(aDraft().withMaxAttempts(1));
            Worker worker = worker(settings());

            worker.claimOnce();
            Run dead = finishAndAcknowledge(worker, run);

            assertThat(dead.status()).isEqualTo(RunStatus.DEAD);
            assertThat(dead.error()).isEqualTo("exit code 3");
            assertThat(dead.output()).isEqualTo("tail");
            assertThat(highestDelay.bounds).as("no delay is drawn for a dead letter").isEmpty();
            assertThat(listener.finished).extracting(RecordingListener.Finished::next).containsExactly(RunStatus.DEAD);
        }

        @Test
        void aTimeoutIsRecordedAsTimedOutAndRetriedLikeAFailure() {
            s.shell.thenReturn(ExecutionResult.timedOut("", "timed out after 300s"));
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings());

            worker.claimOnce();
            Run retry = finishAndAcknowledge(worker, run);

            assertThat(retry.status()).isEqualTo(RunStatus.PENDING);
            assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.TIMED_OUT);
        }

        @Test
        void anExecutorThatThrowsIsRecordedAsAFailedAttemptAndTheWorkerCarriesOn() {
            s.shell.thenAnswer(ctx -> {
                throw new IllegalStateException("boom");
            });
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings());

            worker.claimOnce();
            Run retry = finishAndAcknowledge(worker, run);

            assertThat(retry.status()).isEqualTo(RunStatus.PENDING);
            assertThat(retry.error()).contains("crashed").contains("boom");
            assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.FAILED);
            assertThat(worker.busySlots()).isZero();

            s.advance(Duration.ofSeconds(5));
            assertThat(worker.claimOnce()).isEqualTo(1);
            assertThat(finishAndAcknowledge(worker, run).status()).isEqualTo(RunStatus.SUCCEEDED);
        }

        @Test
        void anExecutorThatThrowsAnErrorDoesNotKillItsSlot() {
            s.shell.thenAnswer(ctx -> {
                throw new AssertionError("a bug in the executor");
            });
            Run run = pendingRun(aDraft().withMaxAttempts(1));
            Worker worker = worker(settings(1, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofMillis(200)));

            worker.claimOnce();
            assertThat(finishAndAcknowledge(worker, run).status()).isEqualTo(RunStatus.DEAD);

            Run next = pendingRun(aDraft());
            assertThat(worker.claimOnce()).isEqualTo(1);
            assertThat(finishAndAcknowledge(worker, next).status()).isEqualTo(RunStatus.SUCCEEDED);
        }
    }

    @Nested
    class OperatorCancellation {
        @Test
        void aCancelRequestFoundByTheCancellationCheckStopsTheExecutionAndTheRunEndsCancelled() {
            s.shell.byDefault(FakeExecutor.untilCancelled());
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings());
            worker.claimOnce();
            Await.until("the run is executing", () -> s.shell.executions().size() == 1);

            s.cancelRun().cancel(run.id());
            worker.checkCancellationsOnce();
            Run cancelled = finishAndAcknowledge(worker, run);

            assertThat(s.shell.executions().get(0).cancellation().reason()).isEqualTo(StopReasons.OPERATOR);
            assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(cancelled.error()).isEqualTo(StopReasons.OPERATOR);
            assertThat(cancelled.workerId()).isNull();
            assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.CANCELLED);
            assertThat(listener.finished).containsExactly(
                    new RecordingListener.Finished(run.id(), AttemptOutcome.CANCELLED, RunStatus.CANCELLED));
        }

        @Test
        void aCancelRequestReportedByTheHeartbeatStopsTheExecutionToo() {
            s.shell.byDefault(FakeExecutor.untilCancelled());
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings());
            worker.claimOnce();

            s.cancelRun().cancel(run.id());
            worker.heartbeatOnce();

            assertThat(finishAndAcknowledge(worker, run).status()).isEqualTo(RunStatus.CANCELLED);
        }

        @Test
        void onlyTheRunAskedForIsStopped() {
            s.shell.byDefault(FakeExecutor.untilCancelled());
            Run first = pendingRun(aDraft().withPriority(1));
            Run second = pendingRun(aDraft().withPriority(2));
            Worker worker = worker(settings());
            worker.claimOnce();
            Await.until("both runs are executing", () -> s.shell.executions().size() == 2);

            s.cancelRun().cancel(second.id());
            worker.checkCancellationsOnce();
            Await.until("one slot is free", () -> worker.busySlots() == 1);
            worker.flushAcknowledgements();

            assertThat(s.run(second.id()).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(s.run(first.id()).status()).isEqualTo(RunStatus.RUNNING);
        }

        @Test
        void anIdleWorkerDoesNotAskForCancellations() {
            worker(settings()).checkCancellationsOnce();

            assertThat(queue.cancellationQueries.get()).isZero();
        }
    }

    @Nested
    class Leases {
        @Test
        void aHeartbeatExtendsTheLeasesOfRunsInFlight() {
            s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings());
            worker.claimOnce();
            s.advance(Duration.ofSeconds(20));

            worker.heartbeatOnce();

            assertThat(s.run(run.id()).leaseExpiresAt()).isEqualTo(s.clock.instant().plusSeconds(30));
            assertThat(worker.busySlots()).isEqualTo(1);
            assertThat(listener.fencesLost).isEmpty();
        }

        @Test
        void aLostLeaseStopsTheExecutionAndItsResultIsNeverAcknowledged() {
            s.shell.byDefault(FakeExecutor.untilCancelled());
            Run lost = pendingRun(aDraft());
            Run alsoLost = pendingRun(aDraft().runAt(s.clock.instant().plusSeconds(20)));
            Worker worker = worker(settings());
            String holder = worker.holder();
            worker.claimOnce();                                  // lost: leased until START + 30 s
            s.advance(Duration.ofSeconds(20));
            worker.claimOnce();                                  // its own lease until START + 50 s, but its holder's
            Await.until("both runs are executing", () -> s.shell.executions().size() == 2);
            s.advance(Duration.ofSeconds(11));                   // not heard for a whole lease
            s.rescueExpiredLeases(RETRY);                        // the leader ends the holder, gives the lost one back...
            s.advance(Duration.ofSeconds(5));
            Run reclaimed = s.claim("w2");                       // ...and another worker takes it
            assertThat(reclaimed.id()).isEqualTo(lost.id());

            worker.heartbeatOnce();                              // told its holder was ended
            Await.until("every slot is free", () -> worker.busySlots() == 0);

            assertThat(executionOf(lost).cancellation().reason()).isEqualTo(StopReasons.LEASE_LOST);
            assertThat(executionOf(alsoLost).cancellation().reason())
                    .as("a holder the leader ended keeps nothing: its other run is recovered at the next pass")
                    .isEqualTo(StopReasons.LEASE_LOST);
            assertThat(worker.flushAcknowledgements()).isZero();
            assertThat(queue.acknowledgementsSent).isEmpty();
            assertThat(listener.fencesLost).extracting(RecordingListener.FenceLost::fence)
                    .containsExactlyInAnyOrder(new RunFence(lost.id(), holder, 1), new RunFence(alsoLost.id(), holder, 1));
            assertThat(listener.finished).isEmpty();
            Run now = s.run(lost.id());
            assertThat(now.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(now.workerId()).isEqualTo("w2");
            assertThat(now.attempt()).isEqualTo(2);
            assertThat(worker.holder()).as("it goes on as a new incarnation").isNotEqualTo(holder);
        }

        @Test
        void aLateAcknowledgementChangesNothingAndIsReportedAsAFenceLost() {
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings());
            worker.claimOnce();
            awaitIdle(worker);                                   // succeeded; its acknowledgement waits to be sent
            s.advance(Duration.ofSeconds(31));
            s.rescueExpiredLeases(RETRY);
            s.advance(Duration.ofSeconds(5));
            s.claim("w2");

            assertThat(worker.flushAcknowledgements()).isEqualTo(1);

            assertThat(listener.fencesLost).containsExactly(
                    new RecordingListener.FenceLost(new RunFence(run.id(), worker.holder(), 1), "late acknowledgement"));
            assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.RUNNING);
            assertThat(s.run(run.id()).workerId()).isEqualTo("w2");
        }

        @Test
        void aFailedHeartbeatLeavesRunsAloneWhileTheirLeasesCanStillBeTrusted() {
            s.shell.byDefault(gate.then(ExecutionResult.succeeded("")));
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings()); // lease 30 s, heartbeat 10 s: trusted for 20 s after the last success
            worker.claimOnce();
            Await.until("the run is executing", () -> gate.entered() == 1);
            queue.heartbeatsFail = true;

            assertThatCode(worker::heartbeatOnce).doesNotThrowAnyException();

            assertThat(s.shell.executions().get(0).cancellation().isCancelled()).isFalse();
            assertThat(worker.busySlots()).isEqualTo(1);
            gate.open();
            assertThat(finishAndAcknowledge(worker, run).status()).isEqualTo(RunStatus.SUCCEEDED);
        }

        @Test
        void heartbeatsFailingForLongerThanTheLeaseLessOneIntervalStopRunsAsUntrusted() {
            s.shell.byDefault(FakeExecutor.untilCancelled());
            Run run = pendingRun(aDraft());
            // lease 200 ms, heartbeat every 100 ms: a run is trusted for 100 ms after its claim or last heartbeat
            Worker worker = worker(settings(2, Duration.ofMillis(200), Duration.ofMillis(100), Duration.ofMillis(200)));
            queue.heartbeatsFail = true;
            worker.start();
            Await.until("the run is executing", () -> s.shell.executions().size() == 1);
            ExecutionContext execution = s.shell.executions().get(0);

            Await.until("the lease deadline timer stops the untrusted run", () -> execution.cancellation().isCancelled());
            awaitIdle(worker);

            assertThat(execution.cancellation().reason()).isEqualTo(StopReasons.UNTRUSTED);
            assertThat(queue.acknowledgementsSent).as("its result is not acknowledged").isEmpty();
            assertThat(listener.fencesLost).extracting(RecordingListener.FenceLost::fence)
                    .containsExactly(new RunFence(run.id(), worker.holder(), 1));
            assertThat(s.run(run.id()).status()).as("left for lease recovery").isEqualTo(RunStatus.RUNNING);
        }
    }

    @Nested
    class Draining {
        @Test
        void stopWaitsOutTheDrainGraceThenReleasesTheRunWithoutSpendingAnAttempt() {
            s.shell.byDefault(FakeExecutor.untilCancelled());
            Run run = pendingRun(aDraft().withMaxAttempts(3));
            Worker worker = worker(settings());
            worker.claimOnce();
            Await.until("the run is executing", () -> s.shell.executions().size() == 1);
            s.advance(Duration.ofSeconds(3));

            long began = System.nanoTime();
            worker.stop();
            Duration took = Duration.ofNanos(System.nanoTime() - began);

            assertThat(took).as("waited the drain grace").isGreaterThanOrEqualTo(Duration.ofMillis(200));
            assertThat(s.shell.executions().get(0).cancellation().reason()).isEqualTo(StopReasons.SHUTDOWN);
            Run released = s.run(run.id());
            assertThat(released.status()).isEqualTo(RunStatus.PENDING);
            assertThat(released.scheduledFor()).isEqualTo(s.clock.instant());
            assertThat(released.attempt()).isEqualTo(1);
            assertThat(released.maxAttempts()).as("the released attempt is not counted").isEqualTo(4);
            assertThat(s.attemptsOf(run.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.RELEASED);
            assertThat(listener.finished).isEmpty();
            assertThat(worker.busySlots()).isZero();
        }

        @Test
        void aRunThatFinishesWithinTheGraceIsAcknowledgedNormally() throws InterruptedException {
            s.shell.byDefault(gate.then(ExecutionResult.succeeded("finished while draining")));
            Run run = pendingRun(aDraft());
            Worker worker = worker(settings(2, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(20)));
            worker.claimOnce();
            Await.until("the run is executing", () -> gate.entered() == 1);

            Thread stopping = new Thread(worker::stop, "stopping-w1");
            long began = System.nanoTime();
            stopping.start();
            Await.until("stop() waits for the run", () -> stopping.getState() == Thread.State.TIMED_WAITING);
            assertThat(worker.claimOnce()).as("a draining worker claims nothing").isZero();
            gate.open();
            stopping.join(Await.DEFAULT_TIMEOUT.toMillis());

            assertThat(stopping.isAlive()).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(20));
            Run done = s.run(run.id());
            assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
            assertThat(done.output()).isEqualTo("finished while draining");
            assertThat(done.maxAttempts()).isEqualTo(3);
        }

        @Test
        void aStoppedWorkerClaimsNothing() {
            Worker worker = worker(settings());
            worker.stop();
            Run run = pendingRun(aDraft());

            assertThat(worker.claimOnce()).isZero();
            assertThat(s.run(run.id()).status()).isEqualTo(RunStatus.PENDING);
        }

        /*
         * Regression test, fixed (Worker.stop(), the `while (flushAcknowledgements() > 0)` loop): when the final acknowledgements cannot be
         * written (the database is failing as the node shuts down), send() throws out of stop(): the runs stopped at the
         * end of the grace are never released (they come back only after their leases expire, through lease recovery,
         * which spends an attempt), and the execution and watchdog pools are never shut down. release() right below is
         * guarded for exactly this case. Fix: catch RuntimeException around the final flush (log how many
         * acknowledgements are given up: their runs return through lease recovery) and go on to release and shut down.
         */
        @Test
        void stopStillReleasesRunsWhenTheFinalAcknowledgementsCannotBeWritten() {
            s.shell.byDefault(ctx -> ctx.payload().containsKey("quick")
                    ? ExecutionResult.succeeded("") : FakeExecutor.untilCancelled().apply(ctx));
            Run quick = pendingRun(aDraft().withPayload(Map.of("quick", true)).withPriority(1));
            Run slow = pendingRun(aDraft().withPriority(2));
            Worker worker = worker(settings());
            worker.claimOnce();
            Await.until("the quick run finished", () -> worker.busySlots() == 1);
            queue.acknowledgementsFail = true;

            assertThatCode(worker::stop).doesNotThrowAnyException();

            assertThat(s.run(slow.id()).status()).isEqualTo(RunStatus.PENDING);
            assertThat(s.attemptsOf(slow.id())).extracting(Attempt::outcome).containsExactly(AttemptOutcome.RELEASED);
            assertThat(s.run(quick.id()).status()).as("left for lease recovery").isEqualTo(RunStatus.RUNNING);
        }
    }

    @Nested
    class Running {
        @Test
        void startedItPicksUpSubmittedRunsByItselfAndAcknowledgesThem() {
            Worker worker = worker(settings());
            worker.start();

            Run first = pendingRun(aDraft());
            Run second = pendingRun(aDraft());

            Await.until("both runs succeeded", () -> s.run(first.id()).status() == RunStatus.SUCCEEDED
                    && s.run(second.id()).status() == RunStatus.SUCCEEDED);
        }

        /*
         * Regression test, fixed (Worker.ackLoop, the inner `while (true)` that resends one failed batch until it succeeds): an
         * acknowledgement the database refuses every time (here: output holding a NUL byte, which PostgreSQL text
         * cannot store; a shell job that prints binary output produces exactly that, and nothing strips it) is retried
         * forever, and every acknowledgement queued behind it waits forever too: the worker keeps claiming and running
         * jobs but none of their results is ever stored, and its heartbeats keep their leases alive, so lease recovery
         * never rescues them either. Fix: after a batch fails, resend its acknowledgements one at a time so one bad ack
         * cannot hold back the others; for an ack that fails on its own, fall back to the same ack without output and
         * with error "the attempt's result could not be stored: <cause>". Separately, PostgresRunQueue should replace
         * NUL characters in output and error before writing them. See the report.
         */
        @Test
        void anAcknowledgementTheDatabaseKeepsRefusingDoesNotHoldBackTheOthers() {
            s.shell.byDefault(ctx -> ctx.payload().containsKey("binary")
                    ? ExecutionResult.succeeded("\u0000\u0001binary") : ExecutionResult.succeeded("text"));
            queue.refusesNulLikePostgres = true;
            Worker worker = worker(settings());
            worker.start();
            pendingRun(aDraft().withPayload(Map.of("binary", true)));
            Await.until("the binary output was refused once", () -> queue.refusedBatches.get() >= 1);

            Run plain = pendingRun(aDraft());

            Await.until("the plain run's success is stored", Duration.ofSeconds(3),
                    () -> s.run(plain.id()).status() == RunStatus.SUCCEEDED);
        }
    }

    @Nested
    class Decisions {
        final Worker worker = worker(settings());
        final Instant now = s.clock.instant();

        InFlight inFlight(int attempt, int maxAttempts) {
            Run run = Run.pending("00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002",
                    maxAttempts, 5, now, "shell", Map.of(), 300, now);
            for (int i = 0; i < attempt; i++) {
                run = RunTransitions.claim(run, "w1", now, now.plusSeconds(30));
                if (i < attempt - 1) {
                    run = RunTransitions.release(run, now);
                }
            }
            return new InFlight(run, new RunFence(run.id(), "w1", run.attempt()), 0);
        }

        @Test
        void anExecutionStoppedByTheWatchdogIsATimeoutAndIsRetried() {
            InFlight f = inFlight(1, 3);
            f.cancellation.cancel(StopReasons.WATCHDOG);

            Acknowledgement ack = worker.slots().decide(f, ExecutionResult.cancelled("partial", "killed"));

            assertThat(ack.outcome()).isEqualTo(AttemptOutcome.TIMED_OUT);
            assertThat(ack.next()).isEqualTo(RunStatus.PENDING);
            assertThat(ack.error()).startsWith("timed out after 300s").contains("killed");
            assertThat(ack.output()).isEqualTo("partial");
            assertThat(ack.retryDelay()).isEqualTo(Duration.ofSeconds(5));
        }

        @Test
        void aWatchdogTimeoutOnTheLastAttemptIsDeadLettered() {
            InFlight f = inFlight(1, 1);
            f.cancellation.cancel(StopReasons.WATCHDOG);

            Acknowledgement ack = worker.slots().decide(f, ExecutionResult.cancelled("", null));

            assertThat(ack.outcome()).isEqualTo(AttemptOutcome.TIMED_OUT);
            assertThat(ack.next()).isEqualTo(RunStatus.DEAD);
            assertThat(ack.error()).contains(StopReasons.WATCHDOG);
        }

        @Test
        void aCancelledExecutionWithoutAReasonIsAnOperatorsCancellation() {
            Acknowledgement ack = worker.slots().decide(inFlight(1, 3), ExecutionResult.cancelled("", null));

            assertThat(ack.next()).isEqualTo(RunStatus.CANCELLED);
            assertThat(ack.error()).isEqualTo(StopReasons.OPERATOR);
            assertThat(ack.retryDelay()).isZero();
        }

        @Test
        void aPermanentFailureIsDeadAtOnceWithItsReasonWhateverAttemptsAreLeft() {
            Acknowledgement ack = worker.slots().decide(inFlight(1, 5),
                    ExecutionResult.failedPermanently("Not Found", "HTTP 404 Not Found (permanent)"));

            assertThat(ack.outcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(ack.next()).isEqualTo(RunStatus.DEAD);
            assertThat(ack.error()).isEqualTo("HTTP 404 Not Found (permanent)");
            assertThat(ack.retryDelay()).isZero();
            assertThat(listener.decisions).singleElement().satisfies(d -> assertThat(d.permanent()).isTrue());
        }

        @Test
        void aRetryAfterIsTheFloorOfTheDelayAndIsRecordedOnTheAcknowledgement() {
            Worker lowest = worker(settings(), s.executors, ExtremeRandom.lowest());

            Acknowledgement ack = lowest.slots().decide(inFlight(1, 3),
                    ExecutionResult.failedRetryAfter("", "HTTP 503 Service Unavailable", Duration.ofSeconds(120)));

            assertThat(ack.next()).isEqualTo(RunStatus.PENDING);
            assertThat(ack.retryDelay()).isEqualTo(Duration.ofSeconds(120));
            assertThat(ack.retryAfter()).isEqualTo(Duration.ofSeconds(120));
        }

        @Test
        void aSnoozeGoesBackToPendingAfterItsSnoozeEvenAtTheLastAttempt() {
            Acknowledgement ack = worker.slots().decide(inFlight(3, 3),
                    ExecutionResult.snoozed("not yet", Duration.ofSeconds(90)));

            assertThat(ack.outcome()).isEqualTo(AttemptOutcome.SNOOZED);
            assertThat(ack.next()).isEqualTo(RunStatus.PENDING);
            assertThat(ack.retryDelay()).isEqualTo(Duration.ofSeconds(90));
            assertThat(ack.retryAfter()).isNull();
            assertThat(ack.error()).isEqualTo("snoozed for 90s");
            assertThat(ack.output()).isEqualTo("not yet");
            assertThat(listener.decisions).isEmpty();
        }

        @Test
        void aSnoozeOfARunAnOperatorStoppedIsACancellation() {
            InFlight f = inFlight(1, 3);
            f.cancellation.cancel(StopReasons.OPERATOR);

            Acknowledgement ack = worker.slots().decide(f, ExecutionResult.snoozed("", Duration.ofSeconds(9)));

            assertThat(ack.outcome()).isEqualTo(AttemptOutcome.CANCELLED);
            assertThat(ack.next()).isEqualTo(RunStatus.CANCELLED);
            assertThat(ack.error()).startsWith(StopReasons.OPERATOR).contains("snoozed for 9s");
        }

        @Test
        void aGiveUpIsCancelledWithItsReasonWhateverAttemptsAreLeft() {
            Acknowledgement ack = worker.slots().decide(inFlight(1, 5), ExecutionResult.gaveUp("", "order deleted"));

            assertThat(ack.outcome()).isEqualTo(AttemptOutcome.GAVE_UP);
            assertThat(ack.next()).isEqualTo(RunStatus.CANCELLED);
            assertThat(ack.error()).isEqualTo("gave up: order deleted");
            assertThat(ack.retryDelay()).isZero();
        }

        @Test
        void theFenceNamesThisWorkerAndTheAttempt() {
            InFlight f = inFlight(2, 5);

            Acknowledgement ack = worker.slots().decide(f, ExecutionResult.succeeded("ok"));

            assertThat(ack.fence()).isEqualTo(new RunFence(f.run.id(), "w1", 2));
            assertThat(ack.next()).isEqualTo(RunStatus.SUCCEEDED);
        }
    }

    /** Always draws the highest (or the lowest) value allowed, and remembers the bounds it was asked for. */
    static final class ExtremeRandom implements RandomGenerator {
        final boolean highest;
        final List<Long> bounds = new CopyOnWriteArrayList<>();

        private ExtremeRandom(boolean highest) {
            this.highest = highest;
        }

        static ExtremeRandom highest() {
            return new ExtremeRandom(true);
        }

        static ExtremeRandom lowest() {
            return new ExtremeRandom(false);
        }

        @Override
        public long nextLong() {
            return highest ? Long.MAX_VALUE : 0L;
        }

        @Override
        public long nextLong(long bound) {
            bounds.add(bound);
            return highest ? bound - 1 : 0L;
        }
    }
}
