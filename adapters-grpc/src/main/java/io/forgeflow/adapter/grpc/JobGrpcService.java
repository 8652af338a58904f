package io.forgeflow.adapter.grpc;

import com.google.protobuf.FieldMask;
import io.forgeflow.adapter.grpc.v1.Backfill;
import io.forgeflow.adapter.grpc.v1.BackfillJobRequest;
import io.forgeflow.adapter.grpc.v1.BatchJob;
import io.forgeflow.adapter.grpc.v1.GetBackfillRequest;
import io.forgeflow.adapter.grpc.v1.DeleteJobRequest;
import io.forgeflow.adapter.grpc.v1.DeleteJobResponse;
import io.forgeflow.adapter.grpc.v1.GetJobRequest;
import io.forgeflow.adapter.grpc.v1.Job;
import io.forgeflow.adapter.grpc.v1.JobIdRequest;
import io.forgeflow.adapter.grpc.v1.JobServiceGrpc;
import io.forgeflow.adapter.grpc.v1.ListJobsRequest;
import io.forgeflow.adapter.grpc.v1.ListJobsResponse;
import io.forgeflow.adapter.grpc.v1.Run;
import io.forgeflow.adapter.grpc.v1.SubmitBatchRequest;
import io.forgeflow.adapter.grpc.v1.SubmitBatchResponse;
import io.forgeflow.adapter.grpc.v1.SubmitJobRequest;
import io.forgeflow.adapter.grpc.v1.SubmitJobResponse;
import io.forgeflow.adapter.grpc.v1.UpdateJobRequest;
import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobPatch;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.PayloadRedaction;
import io.forgeflow.domain.port.JobFilter;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.Workflows.BatchCreation;
import io.forgeflow.domain.trace.TraceContext;
import io.forgeflow.domain.workflow.BatchPlan;
import io.forgeflow.domain.workflow.Dependencies;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/** {@code forgeflow.v1.JobService}: REST's {@code /api/jobs} and {@code /api/batches} use cases. */
final class JobGrpcService extends JobServiceGrpc.JobServiceImplBase {
    private final UseCases uc;
    private final Unary unary;

    JobGrpcService(UseCases uc, Unary unary) {
        this.uc = uc;
        this.unary = unary;
    }

    @Override
    public void submitJob(SubmitJobRequest request, StreamObserver<SubmitJobResponse> observer) {
        unary.answer(observer, () -> {
            String tenant = Tenancy.current().forSubmission(request.getTenant());
            JobDraft draft = Convert.draft(request.getJob());
            Authentication.checkSubmit(draft.executor());
            Dependencies dependencies = Dependencies.validate(
                    request.getDependsOnCount() == 0 ? null : request.getDependsOnList(),
                    request.getOnParentFailure().isEmpty() ? null : request.getOnParentFailure(), Set.of(), "");
            JobCreation creation = uc.submitJob().submit(tenant, draft, dependencies, trace());
            SubmitJobResponse.Builder answer = SubmitJobResponse.newBuilder()
                    .setJob(Convert.job(creation.job(), waits().of(creation.job()))).setCreated(creation.created());
            if (creation.debouncedInto() != null) {
                answer.setDebouncedInto(creation.debouncedInto());
            }
            return answer.build();
        });
    }

    @Override
    public void submitBatch(SubmitBatchRequest request, StreamObserver<SubmitBatchResponse> observer) {
        if (uc.submitBatch() == null) {
            observer.onError(Status.UNIMPLEMENTED.withDescription("this node serves no workflows").asRuntimeException());
            return;
        }
        unary.answer(observer, () -> {
            // the batch and all its jobs are in one tenant
            String tenant = Tenancy.current().forSubmission(request.getTenant());
            List<BatchPlan.Entry> entries = new ArrayList<>();
            for (int i = 0; i < request.getJobsCount(); i++) {
                BatchJob job = request.getJobs(i);
                JobDraft draft = Convert.draft(job.getJob());
                Authentication.checkSubmit(draft.executor());
                entries.add(new BatchPlan.Entry(job.getRef().isEmpty() ? null : job.getRef(), draft,
                        job.getDependsOnCount() == 0 ? null : new ArrayList<Object>(job.getDependsOnList()),
                        job.getOnParentFailure().isEmpty() ? null : job.getOnParentFailure()));
            }
            JobDraft onComplete = request.hasOnComplete() ? Convert.draft(request.getOnComplete()) : null;
            if (onComplete != null) {
                Authentication.checkSubmit(onComplete.executor());
            }
            BatchPlan plan = BatchPlan.validate(request.getName().isEmpty() ? null : request.getName(),
                    request.getIdempotencyKey().isEmpty() ? null : request.getIdempotencyKey(), entries, onComplete);
            BatchCreation creation = uc.submitBatch().submit(tenant, plan, digest(request), trace());
            SubmitBatchResponse.Builder answer = SubmitBatchResponse.newBuilder().setBatchId(creation.batch().id())
                    .setCreated(creation.created()).setTenant(creation.batch().tenant());
            if (creation.jobIds() != null) {
                answer.addAllJobIds(creation.jobIds());
            }
            if (creation.refs() != null) {
                answer.putAllRefs(creation.refs());
            }
            return answer.build();
        });
    }

    @Override
    public void getJob(GetJobRequest request, StreamObserver<Job> observer) {
        unary.answer(observer, () -> {
            io.forgeflow.domain.job.Job job = uc.queryJobs().get(wellFormed(request.getId()));
            return Convert.job(job, waits().of(job));
        });
    }

    @Override
    public void listJobs(ListJobsRequest request, StreamObserver<ListJobsResponse> observer) {
        unary.answer(observer, () -> {
            JobFilter filter = new JobFilter(Convert.jobStatus(request.getStatus()),
                    request.getQueue().isEmpty() ? null : request.getQueue(), request.getLabelsMap(),
                    request.getNamePrefix().isEmpty() ? null : request.getNamePrefix(),
                    Tenancy.current().forList(request.getTenant()));
            HandlerWaits.Snapshot waits = waits();
            Page<ListedJob> page = uc.queryJobs().listForDisplayMatching(filter,
                    Convert.pageSize(request.getPageSize()), Convert.token(request.getPageToken()));
            ListJobsResponse.Builder answer = ListJobsResponse.newBuilder();
            for (ListedJob listed : page.items()) {
                answer.addJobs(Convert.job(listed.job(), waits.of(listed.job()), listed.payloadTruncated()));
            }
            if (page.nextCursor() != null) {
                answer.setNextPageToken(page.nextCursor());
            }
            return answer.build();
        });
    }

    @Override
    public void updateJob(UpdateJobRequest request, StreamObserver<Job> observer) {
        unary.answer(observer, () -> {
            String id = wellFormed(request.getId());
            JobSpec current = uc.queryJobs().get(id).spec();
            Set<String> given = fields(request.getUpdateMask());
            Authentication.checkSubmit(current.executor());
            JobDraft v = Convert.draft(request.getJob());
            // a payload sent back as it was read keeps its masked secrets' stored values, as over REST
            JobDraft values = !given.contains("payload") ? v
                    : v.withPayload(PayloadRedaction.restore(v.payload(), current.payload()));
            io.forgeflow.domain.job.Job job = uc.updateJob().update(id, new JobPatch(values, given),
                    request.getKeepPending());
            return Convert.job(job, waits().of(job));
        });
    }

    /** The update mask's paths: JobSpec's field names (REST's PATCH fields). */
    private static Set<String> fields(FieldMask mask) {
        if (mask.getPathsCount() == 0) {
            throw new ValidationException("update_mask", "update_mask must name the fields to change, such as "
                    + "\"priority\" or \"payload\" (" + String.join(", ", JobPatch.MUTABLE) + ")");
        }
        Set<String> given = new HashSet<>();
        for (String path : mask.getPathsList()) {
            if (!JobPatch.MUTABLE.contains(path) && !JobPatch.FIXED.contains(path)) {
                throw new ValidationException("update_mask", "update_mask names '" + Convert.shorten(path)
                        + "', which is not a field an update may change: use " + String.join(", ", JobPatch.MUTABLE));
            }
            given.add(path);
        }
        return given;
    }

    @Override
    public void pauseJob(JobIdRequest request, StreamObserver<Job> observer) {
        unary.answer(observer, () -> {
            Caller caller = Authentication.CALLER.get();
            String id = wellFormed(request.getId());
            String note = request.getNote().isEmpty() ? null
                    : unknownFirst(() -> io.forgeflow.domain.job.ScheduleState.checkNote(request.getNote()), id);
            return Convert.job(uc.pauseJob().pause(id, note, caller == null ? null : caller.name()), null);
        });
    }

    @Override
    public void resumeJob(JobIdRequest request, StreamObserver<Job> observer) {
        unary.answer(observer, () -> {
            io.forgeflow.domain.job.Job job = uc.resumeJob().resume(wellFormed(request.getId()));
            return Convert.job(job, waits().of(job));
        });
    }

    @Override
    public void cancelJob(JobIdRequest request, StreamObserver<Job> observer) {
        unary.answer(observer, () -> Convert.job(uc.cancelJob().cancel(wellFormed(request.getId())), null));
    }

    @Override
    public void triggerJob(JobIdRequest request, StreamObserver<Run> observer) {
        unary.answer(observer, () -> {
            io.forgeflow.domain.run.Run run = uc.triggerJob().trigger(wellFormed(request.getId()), trace());
            return Convert.run(run, waits().of(run));
        });
    }

    @Override
    public void deleteJob(DeleteJobRequest request, StreamObserver<DeleteJobResponse> observer) {
        unary.answer(observer, () -> {
            DeleteJobResponse.Builder answer = DeleteJobResponse.newBuilder();
            uc.deleteJob().delete(wellFormed(request.getId()), request.getCancelRunning(), request.getPurge())
                    .ifPresent(job -> answer.setJob(Convert.job(job, null)));
            return answer.build();
        });
    }

    @Override
    public void backfillJob(BackfillJobRequest request, StreamObserver<Backfill> observer) {
        unary.answer(observer, () -> {
            String id = wellFormed(request.getId());
            io.forgeflow.domain.job.Backfill backfill = unknownFirst(() -> io.forgeflow.domain.job.Backfill.of(
                    request.hasFrom() ? Convert.instant(request.getFrom()) : null,
                    request.hasTo() ? Convert.instant(request.getTo()) : null,
                    request.getOverlap().isEmpty() ? null : request.getOverlap(),
                    request.hasOnlyMissing() ? request.getOnlyMissing() : null), id);
            return Convert.backfill(uc.backfillJob().backfill(id, backfill).progress());
        });
    }

    @Override
    public void getBackfill(GetBackfillRequest request, StreamObserver<Backfill> observer) {
        unary.answer(observer, () -> {
            if (!io.forgeflow.domain.id.Ids.isWellFormed(request.getBackfillId())) {
                throw new io.forgeflow.domain.error.NotFoundException("backfill", request.getBackfillId());
            }
            return Convert.backfill(uc.backfillJob().progress(wellFormed(request.getJobId()), request.getBackfillId()));
        });
    }

    private HandlerWaits.Snapshot waits() {
        return uc.queryJobs().waits().snapshot();
    }

    /**
     * {@code check}'s value; when it fails, job {@code id} is looked up first, so an unknown id is NOT_FOUND whatever
     * else the request gets wrong, as another tenant's id is (TenantMethods answers that before any check here).
     */
    private <T> T unknownFirst(java.util.function.Supplier<T> check, String id) {
        try {
            return check.get();
        } catch (RuntimeException e) {
            uc.queryJobs().get(id);
            throw e;
        }
    }

    static TraceContext trace() {
        TraceContext trace = Authentication.TRACE.get();
        return trace == null ? TraceContext.parse(null, null) : trace;
    }

    /** An id that cannot name a job is simply not found (ids are opaque to clients), as over REST. */
    static String wellFormed(String id) {
        if (!Ids.isWellFormed(id)) {
            throw new NotFoundException("job", Convert.shorten(id));
        }
        return id;
    }

    /** The request's digest, telling an idempotent replay of a batch from a different request with its key. */
    private static String digest(SubmitBatchRequest request) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(request.toByteArray()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
