package io.forgeflow.adapter.grpc;

import io.forgeflow.application.job.CancelJob;
import io.forgeflow.application.job.DeleteJob;
import io.forgeflow.application.job.PauseJob;
import io.forgeflow.application.job.QueryJobs;
import io.forgeflow.application.job.ResumeJob;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.job.TriggerJob;
import io.forgeflow.application.job.UpdateJob;
import io.forgeflow.application.node.QueryNodes;
import io.forgeflow.application.queue.QueueControls;
import io.forgeflow.application.run.CancelRun;
import io.forgeflow.application.run.QueryRuns;
import io.forgeflow.application.run.RequeueRun;
import io.forgeflow.application.schedule.PreviewSchedule;
import io.forgeflow.application.workflow.SubmitBatch;

import java.util.Objects;

/**
 * The application's use cases the gRPC API calls: the same instances' kinds the REST API is given, and the directory
 * of who owns each job, run and batch ({@link TenantMethods}), and the tenants' weights and limits
 * ({@code TenantService}).
 */
public record UseCases(SubmitJob submitJob, SubmitBatch submitBatch, QueryJobs queryJobs, UpdateJob updateJob,
                       PauseJob pauseJob, ResumeJob resumeJob, CancelJob cancelJob, TriggerJob triggerJob,
                       DeleteJob deleteJob, QueryRuns queryRuns, CancelRun cancelRun, RequeueRun requeueRun,
                       QueueControls queues, PreviewSchedule previewSchedule, QueryNodes queryNodes,
                       io.forgeflow.application.schedule.BackfillJob backfillJob,
                       io.forgeflow.domain.port.TenantDirectory tenants,
                       io.forgeflow.application.tenant.TenantControls tenantControls) {
    /** @param submitBatch null on a node without workflows: SubmitBatch answers UNIMPLEMENTED */
    public UseCases {
        Objects.requireNonNull(submitJob, "submitJob");
        Objects.requireNonNull(queryJobs, "queryJobs");
        Objects.requireNonNull(updateJob, "updateJob");
        Objects.requireNonNull(pauseJob, "pauseJob");
        Objects.requireNonNull(resumeJob, "resumeJob");
        Objects.requireNonNull(cancelJob, "cancelJob");
        Objects.requireNonNull(triggerJob, "triggerJob");
        Objects.requireNonNull(deleteJob, "deleteJob");
        Objects.requireNonNull(queryRuns, "queryRuns");
        Objects.requireNonNull(cancelRun, "cancelRun");
        Objects.requireNonNull(requeueRun, "requeueRun");
        Objects.requireNonNull(queues, "queues");
        Objects.requireNonNull(previewSchedule, "previewSchedule");
        Objects.requireNonNull(queryNodes, "queryNodes");
        Objects.requireNonNull(backfillJob, "backfillJob");
        // no directory, no gRPC: a tenant's call could otherwise name another tenant's objects
        Objects.requireNonNull(tenants, "tenants");
        Objects.requireNonNull(tenantControls, "tenantControls");
    }
}
