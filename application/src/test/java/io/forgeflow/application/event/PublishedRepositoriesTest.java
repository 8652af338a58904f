package io.forgeflow.application.event;

import io.forgeflow.application.testkit.InMemoryStore;
import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository.RunCancellation;
import io.forgeflow.domain.port.JobRepository.TickOutcome;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** The API's and the scheduler's run changes, published from what the repositories returned, after they returned. */
class PublishedRepositoriesTest {
    final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final InMemoryStore store = new InMemoryStore(clock);
    final List<RunChange> published = new ArrayList<>();
    final RunEvents events = new RunEvents() {
        @Override
        public void publish(List<RunChange> changes) {
            published.addAll(changes);
        }

        @Override
        public AutoCloseable subscribe(Listener listener) {
            return () -> { };
        }
    };
    final RunChanges changes = new RunChanges(events, clock);
    final PublishedJobs jobs = new PublishedJobs(store.jobs(), changes);
    final PublishedRuns runs = new PublishedRuns(store.runs(), changes);

    Job aJob(String cron, String idempotencyKey) {
        JobSpec spec = new JobSpec("j", "shell", Map.of(), cron, null, "UTC", 5, 3, 60, CatchUp.SKIP, idempotencyKey);
        return new Job(Ids.newId(now), spec, JobStatus.ACTIVE, cron == null ? null : now.plusSeconds(3600), now, now);
    }

    Run aRun(Job job) {
        return Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell", Map.of(), 60, now);
    }

    @Test
    void aCreatedJobsFirstRunIsPublishedAndAnIdempotentRepeatPublishesNothing() {
        Job job = aJob(null, "k1");
        Run first = aRun(job);

        jobs.create(job, first);
        Job again = aJob(null, "k1");
        jobs.create(again, aRun(again));

        assertThat(published).extracting(RunChange::runId, RunChange::status, RunChange::workerId, RunChange::at)
                .containsExactly(tuple(first.id(), RunStatus.PENDING, null, now));
    }

    @Test
    void operatorsInsertsCancelsAndRequeuesArePublishedButAStopRequestIsNot() {
        Job job = aJob("0 0 1 1 *", null);
        jobs.create(job, null);
        Run triggered = runs.insert(aRun(job));
        runs.cancelPending(triggered.id(), "no");
        runs.cancelPending(triggered.id(), "twice: nothing changes");
        runs.requeue(triggered.id(), 1);

        assertThat(published).extracting(RunChange::runId, RunChange::status)
                .containsExactly(tuple(triggered.id(), RunStatus.PENDING), tuple(triggered.id(), RunStatus.CANCELLED),
                        tuple(triggered.id(), RunStatus.PENDING));
    }

    @Test
    void aPauseADeletionAndATickPublishTheRunsTheyCancelledOrStored() {
        Job job = aJob("0 0 1 1 *", null);
        Run first = aRun(job);
        jobs.create(job, first);
        published.clear();

        jobs.changeStatus(job.id(), JobStatus.ACTIVE, JobStatus.PAUSED, null, RunCancellation.PENDING, null);
        assertThat(jobs.changeStatus(job.id(), JobStatus.ACTIVE, JobStatus.PAUSED, null, RunCancellation.PENDING,
                null)).as("a lost compare-and-set changes and publishes nothing").isEmpty();
        Run resumed = aRun(job);
        jobs.changeStatus(job.id(), JobStatus.PAUSED, JobStatus.ACTIVE, now.plusSeconds(60), RunCancellation.NONE,
                resumed);
        jobs.delete(job.id(), JobStatus.ACTIVE, false);

        assertThat(published).extracting(RunChange::runId, RunChange::status)
                .containsExactly(tuple(first.id(), RunStatus.CANCELLED), tuple(resumed.id(), RunStatus.PENDING),
                        tuple(resumed.id(), RunStatus.CANCELLED));

        Job cron = aJob("* * * * *", null);
        jobs.create(cron, null);
        published.clear();
        Run tick = aRun(cron);
        assertThat(jobs.fire(cron.id(), cron.nextRunAt(), cron.nextRunAt().plusSeconds(60), tick))
                .isEqualTo(TickOutcome.FIRED);
        assertThat(jobs.fire(cron.id(), cron.nextRunAt(), cron.nextRunAt().plusSeconds(60), aRun(cron)))
                .as("a tick another firer took").isEqualTo(TickOutcome.NOT_ADVANCED);

        assertThat(published).extracting(RunChange::runId, RunChange::status)
                .containsExactly(tuple(tick.id(), RunStatus.PENDING));

        // the boolean form passes through the decorator too, and publishes the same
        published.clear();
        Job next = jobs.find(cron.id()).orElseThrow();
        Run second = aRun(cron);
        assertThat(jobs.fireTick(cron.id(), next.nextRunAt(), next.nextRunAt().plusSeconds(60), second)).isTrue();
        assertThat(jobs.fireTick(cron.id(), next.nextRunAt(), next.nextRunAt().plusSeconds(60), aRun(cron))).isFalse();
        assertThat(published).extracting(RunChange::runId, RunChange::status)
                .containsExactly(tuple(second.id(), RunStatus.PENDING));
    }

    @Test
    void aPauseWithANoteReachesTheStoreAndPublishesTheRunsItCancelled() {
        Job job = aJob("0 0 1 1 *", null);
        Run first = aRun(job);
        jobs.create(job, first);
        published.clear();

        Job paused = jobs.pause(job.id(), JobStatus.ACTIVE, "vendor outage", "token 2").orElseThrow().job();

        assertThat(paused.schedule().pausedNote()).isEqualTo("vendor outage");
        assertThat(store.jobs().find(job.id()).orElseThrow().schedule().pausedBy()).isEqualTo("token 2");
        assertThat(published).extracting(RunChange::runId, RunChange::status)
                .containsExactly(tuple(first.id(), RunStatus.CANCELLED));
        assertThat(jobs.pause(job.id(), JobStatus.ACTIVE, "again", null)).as("a lost compare-and-set").isEmpty();
    }

    @Test
    void aBackfillPublishesTheRunsItCreatedAndItsProgressPassesThrough() {
        Job job = aJob("0 * * * *", null);
        jobs.create(job, null);
        published.clear();
        var request = io.forgeflow.domain.job.Backfill.of(now.minusSeconds(7200), now, null, null);

        var outcome = jobs.backfill(job.id(), "b-1", request, List.of(now.minusSeconds(3600), now)).orElseThrow();

        assertThat(published).extracting(RunChange::runId).containsExactlyElementsOf(
                outcome.runs().stream().map(Run::id).toList());
        assertThat(published).extracting(RunChange::status).containsOnly(RunStatus.PENDING).hasSize(2);
        assertThat(jobs.backfillProgress(job.id(), "b-1").orElseThrow().created()).isEqualTo(2);
        assertThat(jobs.backfill("missing", "b-2", request, List.of(now))).isEmpty();
        assertThat(published).hasSize(2);
    }

    @Test
    void readsAndOtherCallsPassThroughAndPublishNothing() {
        Job cron = aJob("* * * * *", null);
        Run first = aRun(cron);
        jobs.create(cron, first);
        Run running = runs.insert(aRun(cron));
        published.clear();

        assertThat(jobs.find(cron.id())).isEqualTo(store.jobs().find(cron.id())).isPresent();
        assertThat(jobs.list(null, 10, null).items()).extracting(Job::id).containsExactly(cron.id());
        assertThat(jobs.listMatching(io.forgeflow.domain.port.JobFilter.ALL, 10, null).items()).hasSize(1);
        assertThat(jobs.listForDisplay(null, 10, null, io.forgeflow.domain.port.ListBudget.DEFAULT).items())
                .hasSize(1);
        assertThat(jobs.listForDisplayMatching(io.forgeflow.domain.port.JobFilter.ALL, 10, null,
                io.forgeflow.domain.port.ListBudget.DEFAULT).items()).hasSize(1);
        assertThat(jobs.dueJobs(10)).isEqualTo(store.jobs().dueJobs(10));
        assertThat(jobs.nextTickIn()).isEqualTo(store.jobs().nextTickIn()).isPresent();
        assertThat(jobs.update(cron.id(), cron.updatedAt(), cron.spec(), cron.nextRunAt(),
                io.forgeflow.domain.port.JobRepository.PendingRuns.KEEP, null)).isPresent();
        Job current = jobs.find(cron.id()).orElseThrow();
        assertThat(jobs.fire(current, current.nextRunAt().plusSeconds(60), null)).isEqualTo(TickOutcome.FIRED);

        assertThat(runs.find(first.id())).isEqualTo(store.runs().find(first.id())).isPresent();
        assertThat(runs.attempts(first.id())).isEqualTo(store.runs().attempts(first.id()));
        assertThat(runs.list(cron.id(), null, 10, null).items()).hasSize(2);
        assertThat(runs.listMatching(io.forgeflow.domain.port.RunFilter.of(cron.id(), null), 10, null).items())
                .hasSize(2);
        assertThat(runs.listForDisplay(cron.id(), null, 10, null, io.forgeflow.domain.port.ListBudget.DEFAULT)
                .items()).hasSize(2);
        assertThat(runs.listForDisplayMatching(io.forgeflow.domain.port.RunFilter.ALL, 10, null,
                io.forgeflow.domain.port.ListBudget.DEFAULT).items()).hasSize(2);
        assertThat(runs.countByStatus()).isEqualTo(store.runs().countByStatus()).containsEntry(RunStatus.PENDING, 2L);
        assertThat(runs.requestCancel(running.id())).as("not running: nothing to stop").isEmpty();
        assertThat(published).isEmpty();

        Job deleted = jobs.delete(cron.id(), JobStatus.ACTIVE, false).orElseThrow().job();
        assertThat(jobs.purge(deleted.id())).isTrue();
        assertThat(jobs.find(cron.id())).isEmpty();
    }
}
