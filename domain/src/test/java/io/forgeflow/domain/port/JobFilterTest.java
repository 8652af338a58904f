package io.forgeflow.domain.port;

import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.Overlap;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.trace.TraceContext;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-memory reading of a job list's filter (the stores' SQL is held to it by the filter contract). */
class JobFilterTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    static Job job(String name, String queue, Map<String, String> labels, JobStatus status) {
        JobSpec spec = new JobSpec(name, "shell", Map.of(), null, null, "UTC", 5, 3, 60, CatchUp.SKIP, null, queue, null,
                null, Overlap.ALLOW, null, labels);
        return new Job("01a2b3c4-0000-7000-8000-000000000001", spec, status, null, NOW, NOW);
    }

    @Test
    void noConditionListsEveryJobButDeletedOnes() {
        assertThat(JobFilter.ALL.matches(job("a", "default", Map.of(), JobStatus.ACTIVE))).isTrue();
        assertThat(JobFilter.ALL.matches(job("a", "default", Map.of(), JobStatus.PAUSED))).isTrue();
        assertThat(JobFilter.ALL.matches(job("a", "default", Map.of(), JobStatus.DELETED))).isFalse();
        assertThat(new JobFilter(null, null, null, null).labels()).isEmpty();
    }

    @Test
    void aStatusListsOnlyThatStatusDeletedIncluded() {
        assertThat(JobFilter.status(JobStatus.PAUSED)).isEqualTo(new JobFilter(JobStatus.PAUSED, null, Map.of(), null));
        assertThat(JobFilter.status(JobStatus.PAUSED).matches(job("a", "default", Map.of(), JobStatus.PAUSED))).isTrue();
        assertThat(JobFilter.status(JobStatus.PAUSED).matches(job("a", "default", Map.of(), JobStatus.ACTIVE))).isFalse();
        assertThat(JobFilter.status(JobStatus.DELETED).matches(job("a", "default", Map.of(), JobStatus.DELETED)))
                .isTrue();
    }

    @Test
    void queueLabelsAndNamePrefixMustAllHold() {
        Job billing = job("invoice-eu", "billing", Map.of("team", "pay", "tier", "gold"), JobStatus.ACTIVE);

        assertThat(new JobFilter(null, "billing", Map.of(), null).matches(billing)).isTrue();
        assertThat(new JobFilter(null, "reports", Map.of(), null).matches(billing)).isFalse();
        assertThat(new JobFilter(null, null, Map.of("team", "pay"), null).matches(billing)).isTrue();
        assertThat(new JobFilter(null, null, Map.of("team", "pay", "tier", "gold"), null).matches(billing)).isTrue();
        assertThat(new JobFilter(null, null, Map.of("team", "ops"), null).matches(billing)).isFalse();
        assertThat(new JobFilter(null, null, Map.of("region", "eu"), null).matches(billing)).isFalse();
        assertThat(new JobFilter(null, null, Map.of(), "invoice").matches(billing)).isTrue();
        assertThat(new JobFilter(null, null, Map.of(), "Invoice").matches(billing)).as("case-sensitive").isFalse();
        assertThat(new JobFilter(JobStatus.ACTIVE, "billing", Map.of("team", "pay"), "inv").matches(billing)).isTrue();
        assertThat(new JobFilter(JobStatus.ACTIVE, "billing", Map.of("team", "pay"), "rep").matches(billing)).isFalse();
    }

    @Test
    void aTenantFilterMatchesThatTenantsJobsOnly() {
        Job plain = job("invoice-eu", "billing", Map.of(), JobStatus.ACTIVE);
        Job acme = new Job(plain.id(), plain.spec(), plain.status(), plain.nextRunAt(), plain.createdAt(),
                plain.updatedAt(), plain.submittedVia(), plain.trace(), plain.schedule(), "acme");

        assertThat(plain.tenant()).isEqualTo("default");
        assertThat(JobFilter.ALL.inTenant("acme").matches(acme)).isTrue();
        assertThat(JobFilter.ALL.inTenant("acme").matches(plain)).isFalse();
        assertThat(JobFilter.ALL.inTenant("default").matches(plain)).isTrue();
        assertThat(JobFilter.ALL.matches(acme)).isTrue();
        assertThat(new JobFilter(null, "billing", Map.of(), "inv").inTenant("acme"))
                .isEqualTo(new JobFilter(null, "billing", Map.of(), "inv", "acme"));
        assertThat(RunFilter.ALL.inTenant("acme")).isEqualTo(new RunFilter(null, null, null, Map.of(), null, null,
                null, "acme"));
        assertThat(RunFilter.ALL.tenant()).isNull();
    }

    @Test
    void theTenantIsCarriedByEveryCopy() {
        TraceContext context = TraceContext.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null);
        Job plain = job("a", "default", Map.of(), JobStatus.ACTIVE);
        Job job = Job.submitted(plain.id(), plain.spec(), NOW, NOW, null, "acme");
        assertThat(job.tenant()).isEqualTo("acme");
        assertThat(Job.submitted(plain.id(), plain.spec(), NOW, NOW, null).tenant()).isEqualTo("default");
        assertThat(job.withTrace(context).tenant()).isEqualTo("acme");
        assertThat(job.withStatus(JobStatus.PAUSED, null, NOW).tenant()).isEqualTo("acme");
        assertThat(job.withSchedule(job.schedule()).tenant()).isEqualTo("acme");

        Run run = Run.pending("01a2b3c4-0000-7000-8000-000000000002", job.id(), 3, 5, NOW, "shell", Map.of(), 60, NOW)
                .inTenant("acme");
        assertThat(run.tenant()).isEqualTo("acme");
        assertThat(run.inTenant(null).tenant()).isEqualTo("default");
        assertThat(run.withLabels(Map.of("team", "pay")).tenant()).isEqualTo("acme");
        assertThat(run.withRetry(null).tenant()).isEqualTo("acme");
        assertThat(run.withTrace(RunTrace.under(context)).tenant()).isEqualTo("acme");
        assertThat(run.waitingForParents().tenant()).isEqualTo("acme");
    }

    @Test
    void traceAndLabelsAreCarriedByTheCopies() {
        TraceContext context = TraceContext.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null);
        Job job = job("a", "default", Map.of(), JobStatus.ACTIVE);
        assertThat(job.withTrace(context).trace()).isEqualTo(context);
        assertThat(job.withTrace(context).spec()).isEqualTo(job.spec());

        Run run = Run.pending("01a2b3c4-0000-7000-8000-000000000002", job.id(), 3, 5, NOW, "shell", Map.of(), 60, NOW);
        assertThat(run.withLabels(Map.of("team", "pay")).labels()).isEqualTo(Map.of("team", "pay"));
        RunTrace trace = RunTrace.under(context);
        assertThat(trace).isEqualTo(new RunTrace(null, context, null));
        assertThat(RunTrace.under(null)).isNull();
        assertThat(run.withTrace(trace).trace()).isEqualTo(trace);
        assertThat(run.withTrace(trace).id()).isEqualTo(run.id());
    }
}
