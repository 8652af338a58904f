package io.forgeflow.application.testkit;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.JobFilter;
import io.forgeflow.domain.port.JobRepository;
import io.forgeflow.domain.port.JobRepository.PendingRuns;
import io.forgeflow.domain.port.JobRepository.RunCancellation;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunFilter;
import io.forgeflow.domain.port.RunRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filters of the job and run lists, seeded and read through the ports (the Postgres adapter's test extends it
 * too, so the fakes filter as the database does): every condition must hold, labels are copied from a job to its
 * runs (and follow a PATCH unless {@code ?pending=keep}), pages of a filtered list chain by cursor.
 */
public abstract class ListFiltersContract {
    protected abstract MutableClock clock();

    protected abstract JobRepository jobs();

    protected abstract RunRepository runs();

    Job report;
    Job backup;
    Job sync;
    Job odd;
    Run reportRun;
    Run backupRun;
    Run syncRun;
    Run oddRun;

    @BeforeEach
    void fourJobsEachWithAPendingRun() {
        report = create("nightly-report", "reports", Map.of("team", "billing", "env", "prod"), 3600);
        backup = create("nightly-backup", "default", Map.of("team", "ops", "env", "prod"), 7200);
        sync = create("hourly-sync", "reports", Map.of("team", "billing"), 10_800);
        odd = create("weekly_x%", "default", Map.of(), 14_400);
        reportRun = runOf(report);
        backupRun = runOf(backup);
        syncRun = runOf(sync);
        oddRun = runOf(odd);
        jobs().changeStatus(odd.id(), JobStatus.ACTIVE, JobStatus.PAUSED, null, RunCancellation.NONE, null);
    }

    private Job create(String name, String queue, Map<String, String> labels, int dueInSeconds) {
        clock().advance(Duration.ofSeconds(1));
        Instant now = clock().instant();
        JobSpec spec = new JobDraft(name, "shell", Map.of("command", "true"), null, null, null, null, null, null, null,
                null, queue, null, null, null, null, null, labels).validate();
        Job job = new Job(Ids.newId(now), spec, JobStatus.ACTIVE, now.plusSeconds(dueInSeconds), now, now);
        clock().advance(Duration.ofMillis(5));
        Run run = Run.pending(Ids.newId(clock().instant()), job.id(), 3, 5, now.plusSeconds(dueInSeconds), "shell",
                Map.of("command", "true"), 60, clock().instant());
        return jobs().create(job, run).job();
    }

    private Run runOf(Job job) {
        return runs().list(job.id(), null, 10, null).items().get(0);
    }

    /** The ids the filter lists, checked to be the same in the lists for a response (budgeted, cut). */
    private List<String> jobIds(JobFilter filter) {
        List<String> ids = jobs().listMatching(filter, 100, null).items().stream().map(Job::id).toList();
        assertThat(jobs().listForDisplayMatching(filter, 100, null, io.forgeflow.domain.port.ListBudget.DEFAULT)
                .items()).extracting(listed -> listed.job().id()).as("the display list of %s", filter)
                .containsExactlyElementsOf(ids);
        return ids;
    }

    private List<String> runIds(RunFilter filter) {
        List<String> ids = runs().listMatching(filter, 100, null).items().stream().map(Run::id).toList();
        assertThat(runs().listForDisplayMatching(filter, 100, null, io.forgeflow.domain.port.ListBudget.DEFAULT)
                .items()).extracting(listed -> listed.run().id()).as("the display list of %s", filter)
                .containsExactlyElementsOf(ids);
        return ids;
    }

    private static RunFilter labels(Map<String, String> labels) {
        return new RunFilter(null, null, null, labels, null, null, null);
    }

    @Test
    void jobsAndRunsFilterByTenant() {
        clock().advance(Duration.ofSeconds(1));
        Instant now = clock().instant();
        JobSpec spec = new JobDraft("acme-report", "shell", Map.of("command", "true"), null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, Map.of()).validate();
        Job job = Job.submitted(Ids.newId(now), spec, now.plusSeconds(60), now, null, "acme");
        Run run = Run.pending(Ids.newId(now), job.id(), 3, 5, now.plusSeconds(60), "shell", Map.of("command", "true"),
                60, now).inTenant("acme");
        Job acme = jobs().create(job, run).job();

        assertThat(acme.tenant()).isEqualTo("acme");
        assertThat(jobIds(JobFilter.ALL.inTenant("acme"))).containsExactly(acme.id());
        assertThat(jobIds(JobFilter.ALL.inTenant("default"))).doesNotContain(acme.id()).contains(report.id());
        assertThat(jobIds(JobFilter.ALL.inTenant("beta"))).isEmpty();
        assertThat(jobIds(JobFilter.ALL)).contains(acme.id(), report.id());
        assertThat(runIds(RunFilter.ALL.inTenant("acme"))).containsExactly(run.id());
        assertThat(runIds(RunFilter.ALL.inTenant("default"))).doesNotContain(run.id()).contains(reportRun.id());
        assertThat(runs().find(run.id()).orElseThrow().tenant()).isEqualTo("acme");
        assertThat(runs().find(reportRun.id()).orElseThrow().tenant()).isEqualTo("default");
    }

    @Test
    void jobsAndTheirRunsCarryTheirLabels() {
        assertThat(jobs().find(report.id()).orElseThrow().spec().labels())
                .containsExactly(Map.entry("env", "prod"), Map.entry("team", "billing"));
        assertThat(reportRun.labels()).isEqualTo(Map.of("team", "billing", "env", "prod"));
        assertThat(runs().find(syncRun.id()).orElseThrow().labels()).isEqualTo(Map.of("team", "billing"));
        assertThat(oddRun.labels()).isEmpty();

        clock().advance(Duration.ofSeconds(1));
        Run triggered = runs().insert(Run.pending(Ids.newId(clock().instant()), report.id(), 3, 5, clock().instant(),
                "shell", Map.of("command", "true"), 60, clock().instant()));
        assertThat(triggered.labels()).as("a trigger's run, as stored").isEqualTo(Map.of("team", "billing", "env", "prod"));
    }

    @Test
    void jobsFilterByStatusQueueEveryLabelAndNamePrefix() {
        assertThat(jobIds(JobFilter.ALL)).containsExactly(odd.id(), sync.id(), backup.id(), report.id());
        assertThat(jobIds(JobFilter.status(JobStatus.PAUSED))).containsExactly(odd.id());
        assertThat(jobIds(new JobFilter(null, "reports", Map.of(), null))).containsExactly(sync.id(), report.id());
        assertThat(jobIds(new JobFilter(null, null, Map.of("team", "billing"), null)))
                .containsExactly(sync.id(), report.id());
        assertThat(jobIds(new JobFilter(null, null, Map.of("team", "billing", "env", "prod"), null)))
                .containsExactly(report.id());
        assertThat(jobIds(new JobFilter(null, null, Map.of("env", "prod"), "nightly-"))).containsExactly(backup.id(),
                report.id());
        assertThat(jobIds(new JobFilter(JobStatus.ACTIVE, "default", Map.of(), null))).containsExactly(backup.id());
        assertThat(jobIds(new JobFilter(null, null, Map.of("team", ""), null))).isEmpty();
        assertThat(jobIds(new JobFilter(null, "nowhere", Map.of(), null))).isEmpty();
    }

    @Test
    void aNamePrefixIsLiteralNotAPattern() {
        assertThat(jobIds(new JobFilter(null, null, Map.of(), "weekly_x%"))).containsExactly(odd.id());
        assertThat(jobIds(new JobFilter(null, null, Map.of(), "nightly_"))).as("_ is no wildcard").isEmpty();
        assertThat(jobIds(new JobFilter(null, null, Map.of(), "%"))).as("%% is no wildcard").isEmpty();
        assertThat(jobIds(new JobFilter(null, null, Map.of(), "Nightly"))).as("case-sensitive").isEmpty();
    }

    @Test
    void deletedJobsStayOutUnlessAskedForByStatus() {
        jobs().delete(backup.id(), JobStatus.ACTIVE, false);

        assertThat(jobIds(new JobFilter(null, null, Map.of("env", "prod"), null))).containsExactly(report.id());
        assertThat(jobIds(new JobFilter(JobStatus.DELETED, null, Map.of("env", "prod"), null)))
                .containsExactly(backup.id());
    }

    @Test
    void runsFilterByJobStatusQueueLabelsAndTimes() {
        Instant due = reportRun.scheduledFor();
        assertThat(runIds(labels(Map.of("team", "billing")))).containsExactly(syncRun.id(), reportRun.id());
        assertThat(runIds(labels(Map.of("team", "billing", "env", "prod")))).containsExactly(reportRun.id());
        assertThat(runIds(new RunFilter(null, null, "reports", Map.of(), null, null, null)))
                .containsExactly(syncRun.id(), reportRun.id());
        assertThat(runIds(new RunFilter(null, null, "default", Map.of(), null, null, null)))
                .containsExactly(oddRun.id(), backupRun.id());
        assertThat(runIds(new RunFilter(sync.id(), RunStatus.PENDING, "reports", Map.of("team", "billing"), null,
                null, null))).containsExactly(syncRun.id());
        assertThat(runIds(new RunFilter(null, null, null, Map.of(), due, null, null)))
                .as("scheduled_after is exclusive").containsExactly(oddRun.id(), syncRun.id(), backupRun.id());
        assertThat(runIds(new RunFilter(null, null, null, Map.of(), null, backupRun.scheduledFor(), null)))
                .as("scheduled_before is exclusive").containsExactly(reportRun.id());
        assertThat(runIds(new RunFilter(null, null, null, Map.of(), due, syncRun.scheduledFor().plusSeconds(1),
                null))).containsExactly(syncRun.id(), backupRun.id());

        clock().advance(Duration.ofMinutes(1));
        Instant before = clock().instant();
        clock().advance(Duration.ofMinutes(1));
        runs().cancelPending(backupRun.id(), "not today");
        assertThat(runIds(new RunFilter(null, null, null, Map.of(), null, null, before)))
                .containsExactly(backupRun.id());
        assertThat(runIds(new RunFilter(null, null, null, Map.of(), null, null, clock().instant()))).isEmpty();
        assertThat(runIds(new RunFilter(null, RunStatus.PENDING, null, Map.of("env", "prod"), null, null, null)))
                .containsExactly(reportRun.id());
        assertThat(runs().requeue(backupRun.id(), 1).orElseThrow().labels()).as("a requeued run keeps its labels")
                .isEqualTo(Map.of("team", "ops", "env", "prod"));
    }

    @Test
    void pagesOfAFilteredListChainByCursor() {
        Page<Job> first = jobs().listMatching(new JobFilter(null, null, Map.of("team", "billing"), null), 1, null);
        Page<Job> second = jobs().listMatching(new JobFilter(null, null, Map.of("team", "billing"), null), 1,
                first.nextCursor());
        assertThat(first.items()).extracting(Job::id).containsExactly(sync.id());
        assertThat(second.items()).extracting(Job::id).containsExactly(report.id());
        assertThat(second.nextCursor()).isNull();

        Page<Run> one = runs().listMatching(labels(Map.of("env", "prod")), 1, null);
        Page<Run> two = runs().listMatching(labels(Map.of("env", "prod")), 1, one.nextCursor());
        assertThat(one.items()).extracting(Run::id).containsExactly(backupRun.id());
        assertThat(two.items()).extracting(Run::id).containsExactly(reportRun.id());
        assertThat(two.nextCursor()).isNull();
        assertThat(runs().listForDisplayMatching(labels(Map.of("env", "prod")), 1, one.nextCursor(),
                io.forgeflow.domain.port.ListBudget.DEFAULT).items())
                .extracting(listed -> listed.run().labels()).containsExactly(Map.of("team", "billing", "env", "prod"));
    }

    @Test
    void pendingRunsTakeAPatchsLabelsUnlessKept() {
        Job current = jobs().find(report.id()).orElseThrow();
        JobSpec relabelled = withLabels(current.spec(), Map.of("team", "finance"));
        Job changed = jobs().update(report.id(), current.updatedAt(), relabelled, current.nextRunAt(),
                PendingRuns.FOLLOW, null).orElseThrow();
        assertThat(runs().find(reportRun.id()).orElseThrow().labels()).isEqualTo(Map.of("team", "finance"));
        assertThat(runIds(labels(Map.of("team", "finance")))).containsExactly(reportRun.id());

        jobs().update(report.id(), changed.updatedAt(), withLabels(relabelled, Map.of()), current.nextRunAt(),
                PendingRuns.KEEP, null).orElseThrow();
        assertThat(jobs().find(report.id()).orElseThrow().spec().labels()).isEmpty();
        assertThat(runs().find(reportRun.id()).orElseThrow().labels()).isEqualTo(Map.of("team", "finance"));
        assertThat(jobIds(new JobFilter(null, null, Map.of("team", "finance"), null))).isEmpty();
    }

    private static JobSpec withLabels(JobSpec s, Map<String, String> labels) {
        return new JobSpec(s.name(), s.executor(), s.payload(), s.cronExpr(), s.runAt(), s.timezone(), s.priority(),
                s.maxAttempts(), s.timeoutSeconds(), s.catchUp(), s.idempotencyKey(), s.queue(), s.concurrencyKey(),
                s.maxConcurrent(), s.overlap(), s.uniqueKey(), labels);
    }
}
