package io.forgeflow.domain.port;

import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ports' default methods: each is the filtered or fenced call it stands for. */
class RepositoryDefaultsTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    final List<Object[]> calls = new ArrayList<>();

    /** A port whose abstract methods record their arguments and answer {@code answer}; defaults run as written. */
    @SuppressWarnings("unchecked")
    <T> T port(Class<T> type, Object answer) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            calls.add(new Object[] {method.getName(), args});
            return answer;
        };
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }

    static Job job() {
        JobSpec spec = new JobSpec("a", "shell", Map.of(), null, null, "UTC", 5, 3, 60, CatchUp.SKIP, null);
        return new Job("01a2b3c4-0000-7000-8000-000000000001", spec, JobStatus.ACTIVE, NOW, NOW, NOW);
    }

    @Test
    void aJobListIsTheFilteredListOfItsStatusAndItsDisplayCarriesWholeJobs() {
        Job job = job();
        JobRepository jobs = port(JobRepository.class, new Page<>(List.of(job), "next"));

        assertThat(jobs.list(JobStatus.PAUSED, 7, "c").items()).containsExactly(job);
        assertThat(calls.get(0)[0]).isEqualTo("listMatching");
        assertThat((Object[]) calls.get(0)[1]).containsExactly(JobFilter.status(JobStatus.PAUSED), 7, "c");

        Page<ListedJob> shown = jobs.listForDisplay(null, 3, null, ListBudget.DEFAULT);
        assertThat(shown.items()).containsExactly(new ListedJob(job, false));
        assertThat(shown.nextCursor()).isEqualTo("next");
        assertThat((Object[]) calls.get(1)[1]).containsExactly(JobFilter.ALL, 3, null);
    }

    @Test
    void aPauseWithoutAStoreForNotesIsAStatusChangeCancellingPendingRunsAndBackfillsAreNotKept() {
        Job job = job();
        Optional<JobRepository.JobChange> change = Optional.of(new JobRepository.JobChange(job));
        JobRepository jobs = port(JobRepository.class, change);

        assertThat(jobs.pause(job.id(), JobStatus.ACTIVE, "note", "token 1")).isSameAs(change);
        assertThat(calls.get(0)[0]).isEqualTo("changeStatus");
        assertThat((Object[]) calls.get(0)[1]).containsExactly(job.id(), JobStatus.ACTIVE, JobStatus.PAUSED, null,
                JobRepository.RunCancellation.PENDING, null);
        assertThat(jobs.backfillProgress(job.id(), "b")).isEmpty();
        assertThatThrownBy(() -> jobs.backfill(job.id(), "b",
                io.forgeflow.domain.job.Backfill.of(NOW, NOW, null, null), List.of(NOW)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aBackfillIsDoneWhenNoneOfItsRunsIsPendingWaitingOrRunning() {
        java.util.function.Function<Map<String, Long>, JobRepository.BackfillProgress> progress = runs ->
                new JobRepository.BackfillProgress("b", "j", NOW, NOW, "allow", 3, 3, NOW, runs);
        assertThat(progress.apply(Map.of()).done()).isTrue();
        assertThat(progress.apply(Map.of("succeeded", 2L, "dead", 1L, "cancelled", 4L)).done()).isTrue();
        assertThat(progress.apply(Map.of("pending", 1L)).done()).isFalse();
        assertThat(progress.apply(Map.of("running", 1L)).done()).isFalse();
        assertThat(progress.apply(Map.of("waiting", 1L)).done()).isFalse();
        assertThat(progress.apply(Map.of("pending", 1L, "running", 1L)).done()).as("a sum, not a difference")
                .isFalse();
        assertThat(progress.apply(Map.of("running", 1L, "waiting", 1L)).done()).isFalse();
        var outcome = new JobRepository.BackfillOutcome(progress.apply(Map.of()), new ArrayList<>());
        assertThat(outcome.runs()).isEmpty();
    }

    @Test
    void aTickOfAJobAsReadIsGuardedOnItsNextRunAt() {
        Job job = job();
        JobRepository jobs = port(JobRepository.class, JobRepository.TickOutcome.FIRED);

        assertThat(jobs.fire(job, NOW.plusSeconds(60), null)).isEqualTo(JobRepository.TickOutcome.FIRED);
        assertThat(calls.get(0)[0]).isEqualTo("fire");
        assertThat((Object[]) calls.get(0)[1]).containsExactly(job.id(), NOW, NOW.plusSeconds(60), null);
    }

    @Test
    void aRunListIsTheFilteredListOfItsJobAndStatus() {
        Run run = Run.pending("01a2b3c4-0000-7000-8000-000000000002", job().id(), 3, 5, NOW, "shell", Map.of(), 60, NOW);
        RunRepository runs = port(RunRepository.class, new Page<>(List.of(run), null));

        assertThat(runs.list(run.jobId(), RunStatus.PENDING, 9, null).items()).containsExactly(run);
        assertThat((Object[]) calls.get(0)[1]).containsExactly(RunFilter.of(run.jobId(), RunStatus.PENDING), 9, null);
        assertThat(RunFilter.of(run.jobId(), RunStatus.PENDING))
                .isEqualTo(new RunFilter(run.jobId(), RunStatus.PENDING, null, Map.of(), null, null, null));
        assertThat(new RunFilter(null, null, null, null, null, null, null)).isEqualTo(RunFilter.ALL);
        assertThat(new RunFilter(null, null, null, Map.of("team", "pay"), null, null, null).labels())
                .containsExactly(Map.entry("team", "pay"));
    }

    @Test
    void theCountsOfEveryTenantAreTheCountsOfNoneInParticular() {
        RunRepository runs = port(RunRepository.class, Map.of(RunStatus.PENDING, 3L));

        assertThat(runs.countByStatus()).containsEntry(RunStatus.PENDING, 3L);
        assertThat(calls.get(0)[0]).isEqualTo("countByStatus");
        assertThat((Object[]) calls.get(0)[1]).containsExactly((Object) null);
    }
}
