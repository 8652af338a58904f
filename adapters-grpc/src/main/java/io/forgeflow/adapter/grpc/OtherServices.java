package io.forgeflow.adapter.grpc;

import io.forgeflow.adapter.grpc.v1.ClusterServiceGrpc;
import io.forgeflow.adapter.grpc.v1.ConfigureQueueRequest;
import io.forgeflow.adapter.grpc.v1.ConfigureTenantRequest;
import io.forgeflow.adapter.grpc.v1.GetStatsRequest;
import io.forgeflow.adapter.grpc.v1.GetStatsResponse;
import io.forgeflow.adapter.grpc.v1.ListNodesRequest;
import io.forgeflow.adapter.grpc.v1.ListNodesResponse;
import io.forgeflow.adapter.grpc.v1.ListQueuesRequest;
import io.forgeflow.adapter.grpc.v1.ListQueuesResponse;
import io.forgeflow.adapter.grpc.v1.ListTenantsRequest;
import io.forgeflow.adapter.grpc.v1.ListTenantsResponse;
import io.forgeflow.adapter.grpc.v1.PreviewRequest;
import io.forgeflow.adapter.grpc.v1.PreviewResponse;
import io.forgeflow.adapter.grpc.v1.PreviewedFire;
import io.forgeflow.adapter.grpc.v1.Queue;
import io.forgeflow.adapter.grpc.v1.QueueNameRequest;
import io.forgeflow.adapter.grpc.v1.QueueServiceGrpc;
import io.forgeflow.adapter.grpc.v1.ScheduleServiceGrpc;
import io.forgeflow.adapter.grpc.v1.Tenant;
import io.forgeflow.adapter.grpc.v1.TenantNameRequest;
import io.forgeflow.adapter.grpc.v1.TenantServiceGrpc;
import io.forgeflow.application.schedule.PreviewSchedule;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.tenant.TenantSettings;
import io.grpc.stub.StreamObserver;

import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * {@code QueueService}, {@code TenantService}, {@code ScheduleService} and {@code ClusterService}: REST's queues,
 * tenants, schedules, stats, nodes.
 */
final class OtherServices {
    /** The wall-clock time with its offset, to the second, as REST's preview shows it. */
    static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX");

    private OtherServices() {
    }

    static final class Queues extends QueueServiceGrpc.QueueServiceImplBase {
        private final UseCases uc;
        private final Unary unary;

        Queues(UseCases uc, Unary unary) {
            this.uc = uc;
            this.unary = unary;
        }

        @Override
        public void listQueues(ListQueuesRequest request, StreamObserver<ListQueuesResponse> observer) {
            unary.answer(observer, () -> ListQueuesResponse.newBuilder()
                    .addAllQueues(uc.queues().list(Tenancy.current().forList(request.getTenant())).stream().map(Convert::queue).toList()).build());
        }

        @Override
        public void getQueue(QueueNameRequest request, StreamObserver<Queue> observer) {
            unary.answer(observer, () -> Convert.queue(uc.queues().get(Tenancy.current().forSubmission(null), request.getName())));
        }

        @Override
        public void configureQueue(ConfigureQueueRequest request, StreamObserver<Queue> observer) {
            unary.answer(observer, () -> {
                boolean setMax = false;
                boolean setRate = false;
                for (String path : request.getUpdateMask().getPathsList()) {
                    if (path.equals("max_running")) {
                        setMax = true;
                    } else if (path.equals("rate_limit")) {
                        setRate = true;
                    } else {
                        throw new ValidationException("update_mask", "update_mask names '" + Convert.shorten(path)
                                + "': a queue takes max_running and rate_limit");
                    }
                }
                Integer max = setMax && request.hasMaxRunning() ? request.getMaxRunning() : null;
                RateLimit rate = setRate && request.hasRateLimit()
                        ? new RateLimit(request.getRateLimit().getCount(), request.getRateLimit().getPerSeconds()) : null;
                return Convert.queue(uc.queues().configure(Tenancy.current().forSubmission(null), request.getName(), setMax, setRate,
                        new QueueLimits(max, rate)));
            });
        }

        @Override
        public void pauseQueue(QueueNameRequest request, StreamObserver<Queue> observer) {
            unary.answer(observer, () -> Convert.queue(uc.queues().pause(Tenancy.current().forSubmission(null), request.getName())));
        }

        @Override
        public void resumeQueue(QueueNameRequest request, StreamObserver<Queue> observer) {
            unary.answer(observer, () -> Convert.queue(uc.queues().resume(Tenancy.current().forSubmission(null), request.getName())));
        }
    }

    /** Tenants' fair-share weights and cluster-wide limits, as REST's /api/tenants. */
    static final class Tenants extends TenantServiceGrpc.TenantServiceImplBase {
        private final UseCases uc;
        private final Unary unary;

        Tenants(UseCases uc, Unary unary) {
            this.uc = uc;
            this.unary = unary;
        }

        @Override
        public void listTenants(ListTenantsRequest request, StreamObserver<ListTenantsResponse> observer) {
            unary.answer(observer, () -> ListTenantsResponse.newBuilder()
                    .addAllTenants(uc.tenantControls().list().stream().map(Convert::tenant).toList()).build());
        }

        @Override
        public void getTenant(TenantNameRequest request, StreamObserver<Tenant> observer) {
            unary.answer(observer, () -> Convert.tenant(uc.tenantControls().get(request.getName())));
        }

        @Override
        public void configureTenant(ConfigureTenantRequest request, StreamObserver<Tenant> observer) {
            unary.answer(observer, () -> {
                io.forgeflow.domain.tenant.Tenants.require("name", request.getName());
                boolean setWeight = false;
                boolean setMax = false;
                boolean setRate = false;
                for (String path : request.getUpdateMask().getPathsList()) {
                    switch (path) {
                        case "weight" -> setWeight = true;
                        case "max_running" -> setMax = true;
                        case "rate_limit" -> setRate = true;
                        default -> throw new ValidationException("update_mask", "update_mask names '"
                                + Convert.shorten(path) + "': a tenant takes weight, max_running and rate_limit");
                    }
                }
                // a named field left unset resets: the weight to 1, a limit to none (REST's null)
                int weight = setWeight && request.hasWeight() ? request.getWeight() : 1;
                Integer max = setMax && request.hasMaxRunning() ? request.getMaxRunning() : null;
                RateLimit rate = setRate && request.hasRateLimit()
                        ? new RateLimit(request.getRateLimit().getCount(), request.getRateLimit().getPerSeconds()) : null;
                return Convert.tenant(uc.tenantControls().configure(request.getName(), setWeight, setMax, setRate,
                        new TenantSettings(weight, max, rate)));
            });
        }
    }

    static final class Schedules extends ScheduleServiceGrpc.ScheduleServiceImplBase {
        private final UseCases uc;
        private final Unary unary;

        Schedules(UseCases uc, Unary unary) {
            this.uc = uc;
            this.unary = unary;
        }

        @Override
        public void preview(PreviewRequest request, StreamObserver<PreviewResponse> observer) {
            unary.answer(observer, () -> {
                // the job first: an unknown job (or another tenant's, TenantMethods) is NOT_FOUND whatever else
                io.forgeflow.domain.job.Job job = request.getJobId().isEmpty() ? null
                        : uc.queryJobs().get(JobGrpcService.wellFormed(request.getJobId()));
                int count = request.getCount() == 0 ? PreviewSchedule.DEFAULT_COUNT : request.getCount();
                if (count < 1 || count > PreviewSchedule.MAX_COUNT) {
                    throw new InvalidQueryException("count", "count must be a whole number from 1 to "
                            + PreviewSchedule.MAX_COUNT + " (0: " + PreviewSchedule.DEFAULT_COUNT + "), was "
                            + request.getCount());
                }
                PreviewResponse.Builder answer = PreviewResponse.newBuilder();
                java.time.Instant after = request.hasAfter() ? Convert.instant(request.getAfter()) : null;
                java.util.List<PreviewSchedule.PreviewedFire> fires;
                if (job != null) {
                    if (!request.getCronExpr().isEmpty() || !request.getTimezone().isEmpty() || request.hasStartAt()
                            || request.hasEndAt() || request.getMaxRuns() != 0) {
                        throw new InvalidQueryException("job_id", "with job_id, the schedule comes from the job: leave "
                                + "cron_expr, timezone, start_at, end_at and max_runs unset");
                    }
                    if (!job.spec().isRecurring()) {
                        throw new InvalidQueryException("job_id", "job " + job.id() + " is a one-off job: it has no "
                                + "schedule to preview");
                    }
                    fires = uc.previewSchedule().preview(job.spec().cronExpr(), job.spec().timezone(),
                            job.spec().schedule(), job.id(), job.schedule().firedRuns(), after, count);
                } else {
                    io.forgeflow.domain.job.ScheduleControls controls = new io.forgeflow.domain.job.ScheduleControls(
                            request.hasStartAt() ? Convert.instant(request.getStartAt()) : null,
                            request.hasEndAt() ? Convert.instant(request.getEndAt()) : null,
                            request.getMaxRuns() == 0 ? null : request.getMaxRuns(), null, null).validate(true);
                    fires = uc.previewSchedule().preview(request.getCronExpr().isEmpty() ? null : request.getCronExpr(),
                            request.getTimezone().isEmpty() ? null : request.getTimezone(), controls, null, 0, after,
                            count);
                }
                for (PreviewSchedule.PreviewedFire fire : fires) {
                    PreviewedFire.Builder b = PreviewedFire.newBuilder().setAt(Convert.timestamp(fire.at()))
                            .setLocal(LOCAL.format(fire.local())).setTick(Convert.timestamp(fire.tick()))
                            .setJitterSeconds(fire.jitterSeconds());
                    if (fire.note() != null) {
                        b.setNote(fire.note());
                    }
                    answer.addFires(b);
                }
                return answer.build();
            });
        }
    }

    static final class Cluster extends ClusterServiceGrpc.ClusterServiceImplBase {
        private final UseCases uc;
        private final Unary unary;

        Cluster(UseCases uc, Unary unary) {
            this.uc = uc;
            this.unary = unary;
        }

        @Override
        public void getStats(GetStatsRequest request, StreamObserver<GetStatsResponse> observer) {
            unary.answer(observer, () -> {
                GetStatsResponse.Builder answer = GetStatsResponse.newBuilder();
                for (Map.Entry<RunStatus, Long> e : uc.queryRuns().stats().entrySet()) {
                    answer.putRuns(e.getKey().wireName(), e.getValue());
                }
                return answer.build();
            });
        }

        @Override
        public void listNodes(ListNodesRequest request, StreamObserver<ListNodesResponse> observer) {
            unary.answer(observer, () -> ListNodesResponse.newBuilder()
                    .addAllNodes(uc.queryNodes().recent().stream().map(Convert::node).toList()).build());
        }
    }
}
