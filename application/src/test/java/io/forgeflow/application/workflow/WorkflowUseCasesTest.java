package io.forgeflow.application.workflow;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.application.testkit.InMemoryWorkflows;
import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.port.Workflows.BatchCreation;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.workflow.BatchPlan;
import io.forgeflow.domain.workflow.Dependencies;
import io.forgeflow.domain.workflow.ParentFailure;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkflowUseCasesTest {
    final Scenario s = new Scenario();
    final InMemoryWorkflows workflows = new InMemoryWorkflows(s.store);
    final SubmitJob submit = new SubmitJob(s.store.jobs(), s.executors, s.cron, s.signal, s.clock, Tracing.NONE,
            workflows);
    final AtomicInteger created = new AtomicInteger();
    final SubmitBatch batches = new SubmitBatch(workflows, io.forgeflow.application.job.JobAdmission.of(s.executors), s.signal,
            s.clock, created::addAndGet);

    static Dependencies on(String... parents) {
        return new Dependencies(List.of(parents), ParentFailure.CANCEL);
    }

    @Nested
    class JobsWithParents {
        @Test
        void aChildIsStoredWithAWaitingRunAndWakesNoWorker() {
            Job parent = s.submit(aDraft());
            int wakeUps = s.signal.count();

            JobCreation child = submit.submit(aDraft().named("child").build(), on(parent.id()), null);

            assertThat(child.created()).isTrue();
            Run run = s.onlyRunOf(child.job().id());
            assertThat(run.status()).isEqualTo(RunStatus.WAITING);
            assertThat(run.scheduledFor()).isEqualTo(s.clock.instant());
            assertThat(s.signal.count()).isEqualTo(wakeUps);
            assertThat(new QueryWorkflows(workflows).links(child.job().id()).orElseThrow().parents())
                    .extracting(Workflows.LinkedJob::id).containsExactly(parent.id());
        }

        /** Issue 39: a child requeued before its parent succeeded would run at once beside a dead parent. */
        @Test
        void aChildsRequeueIsRefusedWhileAParentHasNotSucceededUnlessItRunsAnyway() {
            Job parent = s.submit(aDraft().withMaxAttempts(1));
            String cancels = submit.submit(aDraft().named("c1").build(), on(parent.id()), null).job().id();
            String runs = submit.submit(aDraft().named("c2").build(),
                    new Dependencies(List.of(parent.id()), ParentFailure.RUN), null).job().id();
            Run child = s.cancelRun().cancel(s.onlyRunOf(cancels).id());
            Run other = s.cancelRun().cancel(s.onlyRunOf(runs).id());
            io.forgeflow.application.run.RequeueRun requeue = new io.forgeflow.application.run.RequeueRun(
                    s.store.runs(), s.store.jobs(), s.signal, workflows);

            assertThatThrownBy(() -> requeue.requeue(child.id()))
                    .isInstanceOfSatisfying(io.forgeflow.domain.error.ConflictException.class, e -> {
                        assertThat(e.code()).isEqualTo(io.forgeflow.application.run.RequeueRun.PARENT_NOT_SUCCEEDED);
                        assertThat(e.jobId()).isEqualTo(parent.id());
                        assertThat(e.field()).isEqualTo("id");
                        assertThat(e.getMessage()).contains(parent.id()).contains("pending")
                                .contains("requeue that parent's run first");
                    });
            assertThat(s.onlyRunOf(cancels).status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(requeue.requeue(other.id()).status()).as("on_parent_failure run").isEqualTo(RunStatus.PENDING);
            s.cancelRun().cancel(other.id());

            s.claimAndEnd(s.onlyRunOf(parent.id()), RunStatus.SUCCEEDED);
            assertThat(requeue.requeue(child.id()).status()).as("its parent succeeded").isEqualTo(RunStatus.PENDING);
        }

        @Test
        void anOperatorOrAPauseCancelsAWaitingRun() {
            Job parent = s.submit(aDraft());
            String first = submit.submit(aDraft().named("c1").build(), on(parent.id()), null).job().id();
            String second = submit.submit(aDraft().named("c2").build(), on(parent.id()), null).job().id();

            Run cancelled = s.cancelRun().cancel(s.onlyRunOf(first).id());
            assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(cancelled.error()).isEqualTo("cancelled by an operator");
            s.pauseJob().pause(second);
            assertThat(s.onlyRunOf(second).status()).isEqualTo(RunStatus.CANCELLED);
        }

        @Test
        void noParentsIsAPlainSubmission() {
            JobCreation plain = submit.submit(aDraft().build(), Dependencies.NONE, null);
            assertThat(s.onlyRunOf(plain.job().id()).status()).isEqualTo(RunStatus.PENDING);
            assertThat(submit.submit(aDraft().named("n").build(), null, null).job().spec().name()).isEqualTo("n");
        }

        @Test
        void aRecurringChildOrOneWithAUniqueKeyIsRefusedAndNothingIsStored() {
            Job parent = s.submit(aDraft());
            assertThatThrownBy(() -> submit.submit(aRecurringDraft("0 3 * * *").build(), on(parent.id()), null))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("one-off jobs only")
                    .extracting(e -> ((ValidationException) e).field()).isEqualTo("depends_on");
            JobDraft unique = new JobDraft("u", "shell", Map.of(), null, null, null, null, null, null, null, null,
                    null, null, null, null, "key-1", null);
            assertThatThrownBy(() -> submit.submit(unique, on(parent.id()), null))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("unique_key");
            JobDraft sequenced = new JobDraft("q", "shell", Map.of(), null, null, null, null, null, null, null, null,
                    null, null, null, null, null, null, null, null, null, "order-1", null);
            assertThatThrownBy(() -> submit.submit(sequenced, on(parent.id()), null))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("cannot be combined with sequence_key")
                    .extracting(e -> ((ValidationException) e).field()).isEqualTo("depends_on");
            assertThat(s.store.allJobs()).hasSize(1);
        }

        @Test
        void aNodeWithoutAWorkflowStoreRefusesParents() {
            SubmitJob bare = new SubmitJob(s.store.jobs(), s.executors, s.cron, s.signal, s.clock, Tracing.NONE);
            Job parent = s.submit(aDraft());
            assertThatThrownBy(() -> bare.submit(aDraft().build(), on(parent.id()), null))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("PostgreSQL");
        }

        @Test
        void theStoresRefusalOfAParentReachesTheCaller() {
            assertThatThrownBy(() -> submit.submit(aDraft().build(), on("0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b"), null))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("no job");
        }
    }

    @Nested
    class Batches {
        BatchPlan plan(String key, JobDraft then) {
            return BatchPlan.validate("b", key, List.of(
                    new BatchPlan.Entry("a", aDraft().named("a").build(), null, null),
                    new BatchPlan.Entry("b", aDraft().named("b").build(), List.of("a"), "run"),
                    new BatchPlan.Entry(null, aDraft().named("c").runAt(Instant.parse("2030-01-01T00:00:00Z")).build(),
                            null, null)), then);
        }

        @Test
        void aBatchStoresItsJobsWithWaitingChildrenAndWakesWorkersOnce() {
            int before = s.signal.count();
            BatchCreation c = batches.submit(plan("k", aDraft().named("then").build()), "h1", null);

            assertThat(c.created()).isTrue();
            assertThat(c.jobIds()).hasSize(3);
            assertThat(c.refs()).containsOnlyKeys("a", "b");
            assertThat(s.job(c.refs().get("a")).spec().name()).isEqualTo("a");
            assertThat(s.onlyRunOf(c.refs().get("a")).status()).isEqualTo(RunStatus.PENDING);
            assertThat(s.onlyRunOf(c.refs().get("b")).status()).isEqualTo(RunStatus.WAITING);
            assertThat(s.onlyRunOf(c.jobIds().get(2)).scheduledFor()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
            assertThat(s.onlyRunOf(c.batch().onCompleteJobId()).status()).isEqualTo(RunStatus.WAITING);
            assertThat(s.signal.count()).isEqualTo(before + 1);
            assertThat(created.get()).isEqualTo(3);
            assertThat(batches.get(c.batch().id()).total()).isEqualTo(3);
            assertThat(batches.get(c.batch().id()).status()).isEqualTo("open");
        }

        @Test
        void aBatchOfFutureJobsWakesNoWorker() {
            int before = s.signal.count();
            batches.submit(BatchPlan.validate(null, null, List.of(new BatchPlan.Entry(null,
                    aDraft().runAt(Instant.parse("2030-01-01T00:00:00Z")).build(), null, null)), null), "h", null);
            assertThat(s.signal.count()).isEqualTo(before);
        }

        @Test
        void aReplayAnswersTheBatchAndAnotherBodyWithTheKeyIsAConflict() {
            BatchCreation first = batches.submit(plan("k", null), "h1", null);
            BatchCreation again = batches.submit(plan("k", null), "h1", null);
            assertThat(again.created()).isFalse();
            assertThat(again.batch().id()).isEqualTo(first.batch().id());
            assertThat(again.jobIds()).isEqualTo(first.jobIds());
            assertThat(created.get()).isEqualTo(3);
            assertThatThrownBy(() -> batches.submit(plan("k", null), "h2", null))
                    .isInstanceOf(ConflictException.class).hasMessageContaining("different batch")
                    .hasMessageContaining(first.batch().id());
        }

        @Test
        void executorPayloadsAreCheckedAndNamedByPlace() {
            BatchPlan bad = BatchPlan.validate(null, null, List.of(
                    new BatchPlan.Entry(null, aDraft().build(), null, null),
                    new BatchPlan.Entry(null, aDraft().withPayload(Map.of("bad", 1)).build(), null, null)), null);
            assertThatThrownBy(() -> batches.submit(bad, "h", null))
                    .isInstanceOf(ValidationException.class)
                    .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo("jobs[1].payload.bad"))
                    .hasMessageStartingWith("jobs[1].payload.bad is not accepted");
            assertThat(s.store.allJobs()).isEmpty();
        }

        @Test
        void theOnCompletePayloadIsChecked() {
            JobDraft then = aDraft().withExecutor("http").withPayload(Map.of("bad", 1)).build();
            assertThatThrownBy(() -> batches.submit(plan(null, then), "h", null))
                    .isInstanceOf(ValidationException.class)
                    .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo("on_complete.payload.bad"))
                    .hasMessageStartingWith("on_complete.payload.bad is not accepted");
            assertThat(s.store.allJobs()).isEmpty();
        }

        @Test
        void anUnknownBatchIsNotFound() {
            assertThatThrownBy(() -> batches.get("0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b"))
                    .isInstanceOf(NotFoundException.class).hasMessageContaining("batch");
        }
    }

    /** A store for the sweeper alone: what else it is asked is not this test's. */
    abstract static class SweepOnly implements Workflows {
        @Override
        public JobCreation createWithParents(Job job, Run waitingRun, Dependencies dependencies) {
            throw new UnsupportedOperationException("the sweeper creates nothing");
        }

        @Override
        public BatchCreation createBatch(BatchPlan plan, List<Job> jobs, List<Run> runs, Job onComplete,
                                         Run onCompleteRun, String batchId, String requestHash, Instant now) {
            throw new UnsupportedOperationException("the sweeper creates nothing");
        }

        @Override
        public Optional<BatchProgress> findBatch(String id) {
            return Optional.empty();
        }

        @Override
        public Optional<JobLinks> links(String jobId, int childLimit) {
            return Optional.empty();
        }

        @Override
        public Map<String, JobLinks> workflowOf(List<String> jobIds) {
            return Map.of();
        }
    }

    @Nested
    class Sweeper {
        final List<String> completedRounds = new ArrayList<>();
        int rechecks;
        final Workflows counting = new SweepOnly() {
            int left = 250;

            @Override
            public List<String> completeBatches(int limit) {
                int n = Math.min(limit, left);
                left -= n;
                completedRounds.add("round of " + n);
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    ids.add("b" + i);
                }
                return ids;
            }

            @Override
            public int recheckChildren(int limit) {
                rechecks++;
                return rechecks < 3 ? limit : 7;
            }

        };

        @Test
        void aLeaderCompletesEveryReadyBatchInRoundsAndDecidesLeftChildren() {
            AtomicInteger told = new AtomicInteger();
            WorkflowSweeper sweeper = new WorkflowSweeper(counting, FakeLeaderElection.leading(), told::addAndGet);
            assertThat(sweeper.runOnce()).isEqualTo(250);
            assertThat(completedRounds).containsExactly("round of 100", "round of 100", "round of 50");
            assertThat(told.get()).isEqualTo(250);
            assertThat(rechecks).isEqualTo(3);
            sweeper.run();
            assertThat(told.get()).isEqualTo(250);
            assertThat(completedRounds).hasSize(4);
        }

        @Test
        void aStandbyDoesNothing() {
            AtomicInteger told = new AtomicInteger();
            WorkflowSweeper sweeper = new WorkflowSweeper(counting, FakeLeaderElection.standby(), told::addAndGet);
            assertThat(sweeper.runOnce()).isZero();
            assertThat(completedRounds).isEmpty();
            assertThat(rechecks).isZero();
            assertThat(told.get()).isZero();
        }

        @Test
        void leadershipLostMidwayStopsTheRounds() {
            FakeLeaderElection election = FakeLeaderElection.leading();
            Workflows losing = new SweepOnly() {
                @Override
                public List<String> completeBatches(int limit) {
                    election.setLeader(false);
                    return counting.completeBatches(limit);
                }

                @Override
                public int recheckChildren(int limit) {
                    return counting.recheckChildren(limit);
                }

            };
            assertThat(new WorkflowSweeper(losing, election, n -> { }).runOnce()).isEqualTo(100);
            assertThat(rechecks).isZero();
        }
    }

    @Test
    void queryWorkflowsAsksTheStoreOnlyForJobs() {
        QueryWorkflows query = new QueryWorkflows(workflows);
        assertThat(query.of(List.of())).isEmpty();
        Job parent = s.submit(aDraft());
        String child = submit.submit(aDraft().build(), on(parent.id()), null).job().id();
        assertThat(query.of(List.of(child, parent.id()))).containsOnlyKeys(child);
        assertThat(query.links(parent.id()).orElseThrow().children()).extracting(Workflows.LinkedJob::id)
                .containsExactly(child);
        assertThat(query.links("0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b")).isEmpty();
        assertThat(QueryWorkflows.CHILD_LIMIT).isEqualTo(1_000);
        s.advance(Duration.ofSeconds(1));
    }
}
