package io.forgeflow.adapter.grpc;

import io.forgeflow.adapter.grpc.v1.GetRunRequest;
import io.forgeflow.adapter.grpc.v1.ListRunsRequest;
import io.forgeflow.adapter.grpc.v1.ListRunsResponse;
import io.forgeflow.adapter.grpc.v1.Run;
import io.forgeflow.adapter.grpc.v1.RunEvent;
import io.forgeflow.adapter.grpc.v1.RunIdRequest;
import io.forgeflow.adapter.grpc.v1.RunServiceGrpc;
import io.forgeflow.adapter.grpc.v1.WatchRunsRequest;
import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.run.QueryRuns.RunDetail;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunFilter;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

import java.util.function.Predicate;

/** {@code forgeflow.v1.RunService}: REST's {@code /api/runs} use cases, and {@code /api/events}' feed. */
final class RunGrpcService extends RunServiceGrpc.RunServiceImplBase {
    private final UseCases uc;
    private final Unary unary;
    private final RunWatches watches;
    private final Predicate<Throwable> databaseAway;

    /** @param watches null on a node without the event feed: WatchRuns answers UNIMPLEMENTED */
    RunGrpcService(UseCases uc, Unary unary, RunWatches watches, Predicate<Throwable> databaseAway) {
        this.uc = uc;
        this.unary = unary;
        this.watches = watches;
        this.databaseAway = databaseAway;
    }

    @Override
    public void getRun(GetRunRequest request, StreamObserver<Run> observer) {
        unary.answer(observer, () -> {
            RunDetail detail = uc.queryRuns().get(wellFormed(request.getId()));
            return Convert.run(detail.run(), waits().of(detail.run()));
        });
    }

    @Override
    public void listRuns(ListRunsRequest request, StreamObserver<ListRunsResponse> observer) {
        unary.answer(observer, () -> {
            RunFilter filter = new RunFilter(request.getJobId().isEmpty() ? null : request.getJobId(),
                    Convert.runStatus("status", request.getStatus()),
                    request.getQueue().isEmpty() ? null : request.getQueue(), request.getLabelsMap(),
                    request.hasScheduledAfter() ? Convert.instant(request.getScheduledAfter()) : null,
                    request.hasScheduledBefore() ? Convert.instant(request.getScheduledBefore()) : null,
                    request.hasFinishedAfter() ? Convert.instant(request.getFinishedAfter()) : null,
                    Tenancy.current().forList(request.getTenant()));
            HandlerWaits.Snapshot waits = waits();
            Page<ListedRun> page = uc.queryRuns().listForDisplayMatching(filter,
                    Convert.pageSize(request.getPageSize()), Convert.token(request.getPageToken()));
            ListRunsResponse.Builder answer = ListRunsResponse.newBuilder();
            for (ListedRun listed : page.items()) {
                answer.addRuns(Convert.run(listed.run(), waits.of(listed.run()), listed.outputTruncated()));
            }
            if (page.nextCursor() != null) {
                answer.setNextPageToken(page.nextCursor());
            }
            return answer.build();
        });
    }

    @Override
    public void cancelRun(RunIdRequest request, StreamObserver<Run> observer) {
        unary.answer(observer, () -> Convert.run(uc.cancelRun().cancel(wellFormed(request.getId())), null));
    }

    @Override
    public void requeueRun(RunIdRequest request, StreamObserver<Run> observer) {
        unary.answer(observer, () -> {
            io.forgeflow.domain.run.Run run = uc.requeueRun().requeue(wellFormed(request.getId()));
            return Convert.run(run, waits().of(run));
        });
    }

    @Override
    public void watchRuns(WatchRunsRequest request, StreamObserver<RunEvent> observer) {
        if (watches == null) {
            observer.onError(Status.UNIMPLEMENTED.withDescription("this node serves no event feed (api role only)")
                    .asRuntimeException());
            return;
        }
        try {
            watches.watch(request, (ServerCallStreamObserver<RunEvent>) observer);
        } catch (RuntimeException e) {
            observer.onError(GrpcErrors.of(e, databaseAway));
        }
    }

    private HandlerWaits.Snapshot waits() {
        return uc.queryRuns().waits().snapshot();
    }

    private static String wellFormed(String id) {
        if (!Ids.isWellFormed(id)) {
            throw new NotFoundException("run", Convert.shorten(id));
        }
        return id;
    }
}
