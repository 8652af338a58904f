package io.forgeflow.application.testkit;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.port.JobRepository.RunCancellation;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InMemoryJobRepositoryTest {
    private final MutableClock clock = MutableClock.at("2025-01-01T00:00:00Z");
    private final InMemoryStore store = new InMemoryStore(clock);
    private final InMemoryJobRepository jobs = store.jobs();

    private Job job(String key, String cron) {
        Instant now = clock.instant();
        JobSpec spec = new JobSpec("job", "shell", Map.of(), cron, null, "UTC", 5, 3, 60, CatchUp.SKIP, key);
        return new Job(Ids.newId(now), spec, JobStatus.ACTIVE, cron == null ? null : now.plusSeconds(60), now, now);
    }

    @Test
    void aTakenIdempotencyKeyReturnsTheHolderAndStoresNothing() {
        Job first = jobs.create(job("k1", "* * * * *"), null).job();

        JobCreation again = jobs.create(job("k1", "*/5 * * * *"), null);

        assertThat(again.created()).isFalse();
        assertThat(again.job()).isEqualTo(first);
        assertThat(store.allJobs()).hasSize(1);
    }

    @Test
    void listsAreNewestFirstAndCursorsWalkThemToTheEnd() {
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            created.add(0, jobs.create(job(null, "* * * * *"), null).job().id());
        }

        Page<Job> first = jobs.list(null, 2, null);
        Page<Job> second = jobs.list(null, 2, first.nextCursor());
        Page<Job> last = jobs.list(null, 2, second.nextCursor());

        List<String> walked = new ArrayList<>();
        for (Page<Job> p : List.of(first, second, last)) {
            p.items().forEach(j -> walked.add(j.id()));
        }
        assertThat(walked).isEqualTo(created);
        assertThat(last.nextCursor()).isNull();
    }

    @Test
    void aCursorThisStoreDidNotIssueIsAnIllegalArgument() {
        assertThatThrownBy(() -> jobs.list(null, 2, "garbage!")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> jobs.list(null, 2, "cnVuOjE")).isInstanceOf(IllegalArgumentException.class); // "run:1"
    }

    @Test
    void changeStatusIsACompareAndSetThatCancelsPendingRuns() {
        Job job = jobs.create(job(null, "* * * * *"), null).job();
        Run pending = store.runs().insert(Run.pending(Ids.newId(clock.instant()), job.id(), 3, 5, clock.instant(),
                "shell", Map.of(), 60, clock.instant()));
        Run running = store.runs().insert(Run.pending(Ids.newId(clock.instant()), job.id(), 3, 5, clock.instant(),
                "shell", Map.of(), 60, clock.instant()));
        store.queue().claim("w", Set.of("shell"), 1, Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(5));

        assertThat(jobs.changeStatus(job.id(), JobStatus.PAUSED, JobStatus.ACTIVE, null, RunCancellation.NONE, null)).isEmpty();
        Job paused = jobs.changeStatus(job.id(), JobStatus.ACTIVE, JobStatus.PAUSED, null, RunCancellation.PENDING, null)
                .orElseThrow().job();

        assertThat(paused.status()).isEqualTo(JobStatus.PAUSED);
        assertThat(paused.nextRunAt()).isNull();
        assertThat(paused.updatedAt()).isEqualTo(clock.instant());
        List<RunStatus> statuses = store.allRuns().stream().map(Run::status).toList();
        assertThat(statuses).containsExactlyInAnyOrder(RunStatus.CANCELLED, RunStatus.RUNNING);
        assertThat(pending.id()).isNotEqualTo(running.id());
    }

    @Test
    void aTickFiresOnceEvenWhenTwoSchedulersRace() {
        Job job = jobs.create(job(null, "* * * * *"), null).job();
        Instant tick = job.nextRunAt();
        Run run = Run.pending(Ids.newId(tick), job.id(), 3, 5, tick, "shell", Map.of(), 60, tick);
        Run twin = Run.pending(Ids.newId(tick), job.id(), 3, 5, tick, "shell", Map.of(), 60, tick);

        assertThat(jobs.fireTick(job.id(), tick, tick.plusSeconds(60), run)).isTrue();
        assertThat(jobs.fireTick(job.id(), tick, tick.plusSeconds(60), twin)).isFalse();

        assertThat(store.allRuns()).extracting(Run::id).containsExactly(run.id());
        assertThat(jobs.find(job.id()).orElseThrow().nextRunAt()).isEqualTo(tick.plusSeconds(60));
    }

    @Test
    void dueJobsAreActiveRecurringJobsWhoseNextRunHasPassed() {
        Job due = jobs.create(job(null, "* * * * *"), null).job();
        jobs.create(job(null, null), null);
        Job paused = jobs.create(job(null, "* * * * *"), null).job();
        jobs.changeStatus(paused.id(), JobStatus.ACTIVE, JobStatus.PAUSED, paused.nextRunAt(), RunCancellation.PENDING, null);

        assertThat(jobs.dueJobs(10).jobs()).isEmpty();
        clock.advance(Duration.ofSeconds(60));
        assertThat(jobs.dueJobs(10).jobs()).extracting(Job::id).containsExactly(due.id());
        assertThat(jobs.dueJobs(10).now()).isEqualTo(clock.instant());
    }
}
