package io.forgeflow.server;

import com.google.protobuf.FieldMask;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.grpc.v1.ClusterServiceGrpc;
import io.forgeflow.adapter.grpc.v1.ConfigureQueueRequest;
import io.forgeflow.adapter.grpc.v1.ConfigureTenantRequest;
import io.forgeflow.adapter.grpc.v1.DeleteJobRequest;
import io.forgeflow.adapter.grpc.v1.GetJobRequest;
import io.forgeflow.adapter.grpc.v1.GetRunRequest;
import io.forgeflow.adapter.grpc.v1.GetStatsRequest;
import io.forgeflow.adapter.grpc.v1.Job;
import io.forgeflow.adapter.grpc.v1.JobIdRequest;
import io.forgeflow.adapter.grpc.v1.JobServiceGrpc;
import io.forgeflow.adapter.grpc.v1.JobSpec;
import io.forgeflow.adapter.grpc.v1.ListJobsRequest;
import io.forgeflow.adapter.grpc.v1.ListJobsResponse;
import io.forgeflow.adapter.grpc.v1.ListNodesRequest;
import io.forgeflow.adapter.grpc.v1.ListQueuesRequest;
import io.forgeflow.adapter.grpc.v1.ListRunsRequest;
import io.forgeflow.adapter.grpc.v1.ListTenantsRequest;
import io.forgeflow.adapter.grpc.v1.PreviewRequest;
import io.forgeflow.adapter.grpc.v1.PreviewResponse;
import io.forgeflow.adapter.grpc.v1.Queue;
import io.forgeflow.adapter.grpc.v1.QueueNameRequest;
import io.forgeflow.adapter.grpc.v1.QueueServiceGrpc;
import io.forgeflow.adapter.grpc.v1.RateLimit;
import io.forgeflow.adapter.grpc.v1.Run;
import io.forgeflow.adapter.grpc.v1.RunEvent;
import io.forgeflow.adapter.grpc.v1.RunIdRequest;
import io.forgeflow.adapter.grpc.v1.RunServiceGrpc;
import io.forgeflow.adapter.grpc.v1.ScheduleServiceGrpc;
import io.forgeflow.adapter.grpc.v1.BatchJob;
import io.forgeflow.adapter.grpc.v1.SubmitBatchRequest;
import io.forgeflow.adapter.grpc.v1.SubmitBatchResponse;
import io.forgeflow.adapter.grpc.v1.SubmitJobRequest;
import io.forgeflow.adapter.grpc.v1.SubmitJobResponse;
import io.forgeflow.adapter.grpc.v1.Tenant;
import io.forgeflow.adapter.grpc.v1.TenantNameRequest;
import io.forgeflow.adapter.grpc.v1.TenantServiceGrpc;
import io.forgeflow.adapter.grpc.v1.UpdateJobRequest;
import io.forgeflow.adapter.grpc.v1.WatchRunsRequest;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.PsqlSession;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Function;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The gRPC API (issue 41) of one real node on a real PostgreSQL, over real HTTP/2 on loopback, with the stubs
 * generated from forgeflow.proto: every method, each error code, REST's tokens and scopes, WatchRuns seeing a job
 * submitted over REST, and a resumed stream missing nothing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class GrpcApiIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String ADMIN = "grpc-admin-0123456789";
    static final String READ = "grpc-read-0123456789";
    static final String OPERATE = "grpc-operate-0123456789";
    static final String REVERSE_ONLY = "grpc-reverse-0123456789";
    /** Bound to tenants (issue 42): acme and beta may read, submit and operate in their own; acme's admin too. */
    static final String ACME = "grpc-acme-0123456789";
    static final String BETA = "grpc-beta-0123456789";
    static final String ACME_ADMIN = "grpc-acme-admin-0123456789";
    static final Duration WITHIN = Duration.ofSeconds(60);
    /** The node binds gRPC on port 0 and says the port it got in this file ({@link #port()}). */
    static final Path PORTS = portsFile();
    /** The node serves gRPC over TLS with this self-signed certificate (for 127.0.0.1), which the clients trust. */
    static final Path TLS = selfSigned();
    static final String HOLDER = "grpc-test-operator";

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("grpc-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "grpc-worker"),
            ConfigOverride.config("forgeflow.grpcListenAddr", "127.0.0.1:0"),
            ConfigOverride.config("forgeflow.portsFile", PORTS.toString()),
            ConfigOverride.config("forgeflow.grpcTlsCert", TLS.resolve("cert.pem").toString()),
            ConfigOverride.config("forgeflow.grpcTlsKey", TLS.resolve("key.pem").toString()),
            // longer than any wait of these tests: a statement waits on a lock until the call's deadline stops it
            ConfigOverride.config("forgeflow.lockTimeout", "60s"));

    static ManagedChannel channel;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void connect() {
        channel = tlsChannel(TLS.resolve("cert.pem"));
    }

    static ManagedChannel tlsChannel(Path trusted) {
        try {
            NettyChannelBuilder builder = NettyChannelBuilder.forAddress("127.0.0.1", port());
            if (trusted != null) {
                builder.sslContext(GrpcSslContexts.forClient().trustManager(trusted.toFile()).build());
            }
            return builder.build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A key and a self-signed certificate for 127.0.0.1 and localhost, made by openssl. */
    static Path selfSigned() {
        try {
            Path dir = Files.createTempDirectory("forgeflow-grpc-tls");
            dir.toFile().deleteOnExit();
            Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", dir.resolve("key.pem").toString(), "-out", dir.resolve("cert.pem").toString())
                    .redirectErrorStream(true).start();
            String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
                throw new IllegalStateException("openssl could not make a certificate: " + output);
            }
            dir.resolve("key.pem").toFile().deleteOnExit();
            dir.resolve("cert.pem").toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void disconnect() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    static Path portsFile() {
        try {
            Path dir = Files.createTempDirectory("forgeflow-grpc-ports");
            dir.toFile().deleteOnExit();
            return dir.resolve("ports");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The gRPC port the running node wrote to its ports file. */
    static int port() {
        try {
            Integer grpc = NodeProcess.readPorts(PORTS).get("grpc");
            if (grpc == null) {
                throw new IllegalStateException(PORTS + " names no gRPC port");
            }
            return grpc;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Channel as(String token) {
        if (token == null) {
            return channel;
        }
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(md));
    }

    static JobServiceGrpc.JobServiceBlockingStub jobs(String token) {
        return JobServiceGrpc.newBlockingStub(as(token)).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    static RunServiceGrpc.RunServiceBlockingStub runs(String token) {
        return RunServiceGrpc.newBlockingStub(as(token)).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    static JobSpec reverse(String name, String text) {
        return JobSpec.newBuilder().setName(name).setExecutor("reverse").setPayload(Struct.newBuilder()
                .putFields("text", Value.newBuilder().setStringValue(text).build())).build();
    }

    static JobSpec shell(String name, String command) {
        return JobSpec.newBuilder().setName(name).setExecutor("shell").setPayload(Struct.newBuilder()
                .putFields("command", Value.newBuilder().setStringValue(command).build())).build();
    }

    static Job submit(JobSpec spec) {
        SubmitJobResponse answer = jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder().setJob(spec).build());
        assertThat(answer.getCreated()).isTrue();
        return answer.getJob();
    }

    static Run latestRun(String jobId) {
        List<Run> list = runs(READ).listRuns(ListRunsRequest.newBuilder().setJobId(jobId).build()).getRunsList();
        assertThat(list).as("runs of " + jobId).isNotEmpty();
        return list.get(0);
    }

    static Run awaitRun(String jobId, String status) throws InterruptedException {
        long end = System.nanoTime() + WITHIN.toNanos();
        while (System.nanoTime() < end) {
            List<Run> list = runs(READ).listRuns(ListRunsRequest.newBuilder().setJobId(jobId).build()).getRunsList();
            if (!list.isEmpty() && list.get(0).getStatus().equals(status)) {
                return list.get(0);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the run of " + jobId + " did not become " + status + " within " + WITHIN);
    }

    static StatusRuntimeException failure(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            return e;
        }
        throw new AssertionError("the call succeeded; a failure was expected");
    }

    static String badRequestField(StatusRuntimeException e) throws Exception {
        com.google.rpc.Status status = StatusProto.fromThrowable(e);
        assertThat(status).as("a google.rpc.Status in the trailers").isNotNull();
        for (com.google.protobuf.Any detail : status.getDetailsList()) {
            if (detail.is(BadRequest.class)) {
                return detail.unpack(BadRequest.class).getFieldViolations(0).getField();
            }
        }
        return null;
    }

    static String reason(StatusRuntimeException e) throws Exception {
        for (com.google.protobuf.Any detail : StatusProto.fromThrowable(e).getDetailsList()) {
            if (detail.is(ErrorInfo.class)) {
                return detail.unpack(ErrorInfo.class).getReason();
            }
        }
        return null;
    }

    @Test
    void aJobGoesThroughEveryJobMethod() throws Exception {
        Job job = submit(reverse("grpc-life", "abc").toBuilder().setCronExpr("0 3 * * *").build());
        assertThat(job.getStatus()).isEqualTo("active");
        assertThat(job.getSpec().getPayload().getFieldsMap().get("text").getStringValue()).isEqualTo("abc");

        assertThat(jobs(READ).getJob(GetJobRequest.newBuilder().setId(job.getId()).build()).getSpec().getName())
                .isEqualTo("grpc-life");

        Job edited = jobs(ADMIN).updateJob(UpdateJobRequest.newBuilder().setId(job.getId())
                .setJob(JobSpec.newBuilder().setPriority(8).setName("ignored: not in the mask"))
                .setUpdateMask(FieldMask.newBuilder().addPaths("priority")).build());
        assertThat(edited.getSpec().getPriority()).isEqualTo(8);
        assertThat(edited.getSpec().getName()).isEqualTo("grpc-life");

        assertThat(jobs(OPERATE).pauseJob(JobIdRequest.newBuilder().setId(job.getId()).build()).getStatus())
                .isEqualTo("paused");
        assertThat(jobs(OPERATE).resumeJob(JobIdRequest.newBuilder().setId(job.getId()).build()).getStatus())
                .isEqualTo("active");
        Run triggered = jobs(OPERATE).triggerJob(JobIdRequest.newBuilder().setId(job.getId()).build());
        assertThat(triggered.getJobId()).isEqualTo(job.getId());
        awaitRun(job.getId(), "succeeded");
        assertThat(runs(READ).getRun(GetRunRequest.newBuilder().setId(triggered.getId()).build()).getOutput())
                .contains("cba");

        assertThat(jobs(OPERATE).cancelJob(JobIdRequest.newBuilder().setId(job.getId()).build()).getStatus())
                .isEqualTo("cancelled");
        assertThat(jobs(OPERATE).deleteJob(DeleteJobRequest.newBuilder().setId(job.getId()).build()).getJob()
                .getStatus()).isEqualTo("deleted");
        assertThat(jobs(OPERATE).deleteJob(DeleteJobRequest.newBuilder().setId(job.getId()).setPurge(true).build())
                .hasJob()).as("purged: no tombstone").isFalse();
        assertThat(failure(() -> jobs(READ).getJob(GetJobRequest.newBuilder().setId(job.getId()).build()))
                .getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void listJobsFiltersAndPagesWithATokenAsRestDoes() {
        for (int i = 0; i < 3; i++) {
            submit(reverse("grpc-page-" + i, "x").toBuilder().setQueue("paging").putLabels("team", "grpc").build());
        }
        submit(reverse("grpc-page-other", "x"));
        List<String> names = new ArrayList<>();
        String token = "";
        int pages = 0;
        do {
            ListJobsResponse page = jobs(READ).listJobs(ListJobsRequest.newBuilder().setPageSize(2)
                    .setPageToken(token).setQueue("paging").putLabels("team", "grpc").build());
            page.getJobsList().forEach(j -> names.add(j.getSpec().getName()));
            token = page.getNextPageToken();
            pages++;
        } while (!token.isEmpty() && pages < 10);
        assertThat(names).containsExactlyInAnyOrder("grpc-page-0", "grpc-page-1", "grpc-page-2");
        assertThat(pages).isGreaterThanOrEqualTo(2);
        assertThat(jobs(READ).listJobs(ListJobsRequest.newBuilder().setNamePrefix("grpc-page-o").build())
                .getJobsList()).extracting(j -> j.getSpec().getName()).containsExactly("grpc-page-other");
    }

    @Test
    void aBatchIsSubmittedWithItsParents() {
        SubmitBatchResponse batch = jobs(ADMIN).submitBatch(SubmitBatchRequest.newBuilder().setName("grpc-batch")
                .addJobs(BatchJob.newBuilder().setRef("first").setJob(reverse("grpc-b1", "one")))
                .addJobs(BatchJob.newBuilder().setRef("second").setJob(reverse("grpc-b2", "two")).addDependsOn("first"))
                .build());
        assertThat(batch.getCreated()).isTrue();
        assertThat(batch.getJobIdsList()).hasSize(2);
        assertThat(batch.getRefsMap()).containsOnlyKeys("first", "second");
    }

    @Test
    void scheduleControlsGoThroughSubmitUpdatePausePreviewAndTheirRangesAreChecked() throws Exception {
        com.google.protobuf.Timestamp start = com.google.protobuf.Timestamp.newBuilder()
                .setSeconds(java.time.Instant.now().plus(Duration.ofDays(1)).getEpochSecond()).build();
        Job job = submit(reverse("grpc-steered", "x").toBuilder().setCronExpr("0 * * * *").setStartAt(start)
                .setMaxRuns(2).setJitterSeconds(60).setPauseAfterFailures(3).build());
        assertThat(job.getSpec().getStartAt()).isEqualTo(start);
        assertThat(job.getSpec().getMaxRuns()).isEqualTo(2);
        assertThat(job.getSpec().getJitterSeconds()).isEqualTo(60);
        assertThat(job.getSpec().getPauseAfterFailures()).isEqualTo(3);
        assertThat(job.getNextRunAt().getSeconds()).isBetween(start.getSeconds(), start.getSeconds() + 3_600 + 60);

        PreviewResponse preview = ScheduleServiceGrpc.newBlockingStub(as(READ)).preview(PreviewRequest.newBuilder()
                .setJobId(job.getId()).setCount(5).build());
        assertThat(preview.getFiresList()).hasSize(2);
        assertThat(preview.getFires(0).getAt()).isEqualTo(job.getNextRunAt());
        assertThat(preview.getFires(0).getAt().getSeconds() - preview.getFires(0).getTick().getSeconds())
                .isEqualTo(preview.getFires(0).getJitterSeconds()).isBetween(0L, 60L);
        assertThat(preview.getFires(1).getNote()).contains("the last run (max_runs 2)");

        Job paused = jobs(OPERATE).pauseJob(JobIdRequest.newBuilder().setId(job.getId()).setNote("vendor outage")
                .build());
        assertThat(paused.getPausedNote()).isEqualTo("vendor outage");
        assertThat(paused.getPausedBy()).isEqualTo("token 3");
        assertThat(paused.getDeadStreak()).isZero();
        pg.jdbi().useHandle(h -> h.createUpdate("UPDATE forgeflow.jobs SET dead_streak = 2 WHERE id::text = :id")
                .bind("id", job.getId()).execute());
        assertThat(jobs(READ).getJob(GetJobRequest.newBuilder().setId(job.getId()).build()).getDeadStreak())
                .as("dead runs in a row so far (issue 45)").isEqualTo(2);

        Job edited = jobs(ADMIN).updateJob(UpdateJobRequest.newBuilder().setId(job.getId())
                .setJob(JobSpec.newBuilder().setJitterSeconds(5))
                .setUpdateMask(FieldMask.newBuilder().addPaths("jitter_seconds").addPaths("max_runs")).build());
        assertThat(edited.getSpec().getJitterSeconds()).isEqualTo(5);
        assertThat(edited.getSpec().hasMaxRuns()).as("in the mask, unset: removed").isFalse();
        assertThat(edited.getPausedNote()).as("an edit keeps the pause").isEqualTo("vendor outage");

        // a payload in the mask beside a schedule control: the control is kept (the payload's copy once dropped it)
        Job both = jobs(ADMIN).updateJob(UpdateJobRequest.newBuilder().setId(job.getId())
                .setJob(reverse("grpc-steered", "y").toBuilder().setJitterSeconds(7).setPauseAfterFailures(4))
                .setUpdateMask(FieldMask.newBuilder().addPaths("payload").addPaths("jitter_seconds")
                        .addPaths("pause_after_failures")).build());
        assertThat(both.getSpec().getPayload().getFieldsOrThrow("text").getStringValue()).isEqualTo("y");
        assertThat(both.getSpec().getJitterSeconds()).isEqualTo(7);
        assertThat(both.getSpec().getPauseAfterFailures()).isEqualTo(4);

        // backfill: three past ticks, once; the second call adds nothing; progress readable with scope read
        com.google.protobuf.Timestamp from = com.google.protobuf.Timestamp.newBuilder()
                .setSeconds(java.time.Instant.parse("2026-01-01T00:00:00Z").getEpochSecond()).build();
        com.google.protobuf.Timestamp to = com.google.protobuf.Timestamp.newBuilder()
                .setSeconds(java.time.Instant.parse("2026-01-01T02:00:00Z").getEpochSecond()).build();
        io.forgeflow.adapter.grpc.v1.Backfill backfill = jobs(OPERATE).backfillJob(
                io.forgeflow.adapter.grpc.v1.BackfillJobRequest.newBuilder().setId(job.getId()).setFrom(from).setTo(to)
                        .setOverlap("queue_one").build());
        assertThat(backfill.getTicks()).isEqualTo(3);
        assertThat(backfill.getCreated()).isEqualTo(3);
        assertThat(backfill.getOverlap()).isEqualTo("queue_one");
        io.forgeflow.adapter.grpc.v1.Backfill again = jobs(OPERATE).backfillJob(
                io.forgeflow.adapter.grpc.v1.BackfillJobRequest.newBuilder().setId(job.getId()).setFrom(from).setTo(to)
                        .build());
        assertThat(again.getCreated()).isZero();
        assertThat(again.getSkipped()).isEqualTo(3);
        io.forgeflow.adapter.grpc.v1.Backfill read = jobs(READ).getBackfill(
                io.forgeflow.adapter.grpc.v1.GetBackfillRequest.newBuilder().setJobId(job.getId())
                        .setBackfillId(backfill.getId()).build());
        assertThat(read.getId()).isEqualTo(backfill.getId());
        assertThat(read.getRunsMap().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3);
        StatusRuntimeException reversed = failure(() -> jobs(OPERATE).backfillJob(
                io.forgeflow.adapter.grpc.v1.BackfillJobRequest.newBuilder().setId(job.getId()).setFrom(to).setTo(from)
                        .build()));
        assertThat(reversed.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(reversed)).isEqualTo("to");
        assertThat(failure(() -> jobs(READ).backfillJob(io.forgeflow.adapter.grpc.v1.BackfillJobRequest.newBuilder()
                .setId(job.getId()).setFrom(from).setTo(to).build())).getStatus().getCode())
                .isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(failure(() -> jobs(READ).getBackfill(io.forgeflow.adapter.grpc.v1.GetBackfillRequest.newBuilder()
                .setJobId(job.getId()).setBackfillId("nope").build())).getStatus().getCode())
                .isEqualTo(Status.Code.NOT_FOUND);

        for (var bad : List.of(java.util.Map.entry("max_runs", reverse("b", "x").toBuilder().setCronExpr("@hourly").setMaxRuns(0)),
                java.util.Map.entry("jitter_seconds", reverse("b", "x").toBuilder().setCronExpr("@hourly").setJitterSeconds(86_401)),
                java.util.Map.entry("pause_after_failures", reverse("b", "x").toBuilder().setCronExpr("@hourly")
                        .setPauseAfterFailures(1_001)),
                java.util.Map.entry("start_at", reverse("b", "x").toBuilder().setStartAt(start)))) {
            StatusRuntimeException e = failure(() -> jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                    .setJob(bad.getValue()).build()));
            assertThat(e.getStatus().getCode()).as(bad.getKey()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(badRequestField(e)).isEqualTo(bad.getKey());
        }
    }

    /** Issue 45: a job's notify over gRPC, submitted, read, changed through the mask, removed; bad ones refused. */
    @Test
    void aJobsNotifyGoesInComesBackAndIsCheckedNamingTheField() throws Exception {
        io.forgeflow.adapter.grpc.v1.Notify notify = io.forgeflow.adapter.grpc.v1.Notify.newBuilder()
                .setUrl("https://hooks.example.com/grpc").addOn("recovered").addOn("dead").build();
        Job job = submit(reverse("grpc-notify", "x").toBuilder().setNotify(notify).build());
        assertThat(job.getSpec().getNotify().getUrl()).isEqualTo("https://hooks.example.com/grpc");
        assertThat(job.getSpec().getNotify().getOnList()).containsExactly("dead", "recovered");
        Job all = submit(reverse("grpc-notify-all", "x").toBuilder().setNotify(
                io.forgeflow.adapter.grpc.v1.Notify.newBuilder().setUrl("https://hooks.example.com/grpc")).build());
        assertThat(all.getSpec().getNotify().getOnList()).containsExactly("dead", "paused", "recovered");

        Job changed = jobs(ADMIN).updateJob(UpdateJobRequest.newBuilder().setId(job.getId())
                .setJob(JobSpec.newBuilder().setNotify(notify.toBuilder().clearOn().addOn("paused")))
                .setUpdateMask(FieldMask.newBuilder().addPaths("notify")).build());
        assertThat(changed.getSpec().getNotify().getOnList()).containsExactly("paused");
        Job removed = jobs(ADMIN).updateJob(UpdateJobRequest.newBuilder().setId(job.getId())
                .setJob(JobSpec.newBuilder()).setUpdateMask(FieldMask.newBuilder().addPaths("notify")).build());
        assertThat(removed.getSpec().hasNotify()).isFalse();

        for (var bad : List.of(java.util.Map.entry("notify.url", notify.toBuilder().setUrl("ftp://hooks.example.com/")),
                java.util.Map.entry("notify.url", notify.toBuilder().clearUrl()),
                java.util.Map.entry("notify.on", notify.toBuilder().addOn("exploded")))) {
            StatusRuntimeException e = failure(() -> jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                    .setJob(reverse("b", "x").toBuilder().setNotify(bad.getValue())).build()));
            assertThat(e.getStatus().getCode()).as(bad.getKey()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(badRequestField(e)).isEqualTo(bad.getKey());
        }
    }

    @Test
    void badInputIsInvalidArgumentNamingTheField() throws Exception {
        StatusRuntimeException noExecutor = failure(() -> jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                .setJob(JobSpec.newBuilder().setName("no executor")).build()));
        assertThat(noExecutor.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(noExecutor)).isEqualTo("executor");
        assertThat(reason(noExecutor)).isEqualTo("validation_failed");

        StatusRuntimeException priority = failure(() -> jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                .setJob(reverse("bad priority", "x").toBuilder().setPriority(42)).build()));
        assertThat(priority.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(priority)).isEqualTo("priority");

        Job job = submit(reverse("grpc-mask", "x"));
        StatusRuntimeException mask = failure(() -> jobs(ADMIN).updateJob(UpdateJobRequest.newBuilder()
                .setId(job.getId()).setUpdateMask(FieldMask.newBuilder().addPaths("colour")).build()));
        assertThat(mask.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(mask)).isEqualTo("update_mask");

        StatusRuntimeException status = failure(() -> runs(READ).listRuns(ListRunsRequest.newBuilder()
                .setStatus("sleeping").build()));
        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(status)).isEqualTo("status");
    }

    @Test
    void unknownIdsAreNotFound() {
        assertThat(failure(() -> jobs(READ).getJob(GetJobRequest.newBuilder().setId("no-such-job").build()))
                .getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(failure(() -> runs(READ).getRun(GetRunRequest.newBuilder()
                .setId("00000000-0000-0000-0000-000000000000").build())).getStatus().getCode())
                .isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void conflictsAreAlreadyExistsForKeysAndAbortedForStates() throws Exception {
        JobSpec keyed = reverse("grpc-keyed", "one").toBuilder().setIdempotencyKey("grpc-key-1").build();
        Job first = submit(keyed);
        SubmitJobResponse replay = jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder().setJob(keyed).build());
        assertThat(replay.getCreated()).as("the same body again: the same job").isFalse();
        assertThat(replay.getJob().getId()).isEqualTo(first.getId());
        StatusRuntimeException other = failure(() -> jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                .setJob(keyed.toBuilder().setPayload(Struct.newBuilder().putFields("text",
                        Value.newBuilder().setStringValue("two").build()))).build()));
        assertThat(other.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(reason(other)).isEqualTo("idempotency_conflict");

        Job job = submit(reverse("grpc-cancelled", "x").toBuilder().setCronExpr("0 4 * * *").build());
        jobs(OPERATE).cancelJob(JobIdRequest.newBuilder().setId(job.getId()).build());
        StatusRuntimeException state = failure(() -> jobs(OPERATE).pauseJob(JobIdRequest.newBuilder()
                .setId(job.getId()).build()));
        assertThat(state.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
    }

    @Test
    void messagesOverRestsBodyLimitsAreResourceExhausted() throws Exception {
        StatusRuntimeException e = failure(() -> jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                .setJob(reverse("too big", "x".repeat(17 << 20))).build()));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        // REST takes 1 MiB on every route but batches
        StatusRuntimeException job = failure(() -> jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                .setJob(reverse("over a MiB", "x".repeat((1 << 20) + 10))).build()));
        assertThat(job.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(reason(job)).isEqualTo("payload_too_large");
        // a batch may be larger
        SubmitBatchRequest.Builder batch = SubmitBatchRequest.newBuilder().setName("grpc-big-batch");
        for (int i = 0; i < 3; i++) {
            batch.addJobs(BatchJob.newBuilder().setJob(reverse("grpc-big-" + i, "y".repeat(500_000))));
        }
        assertThat(jobs(ADMIN).submitBatch(batch.build()).getJobIdsCount()).isEqualTo(3);
    }

    @Test
    void tokensAndScopesAreRests() throws Exception {
        StatusRuntimeException none = failure(() -> jobs(null).listJobs(ListJobsRequest.getDefaultInstance()));
        assertThat(none.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(none.getStatus().getDescription()).contains("authorization: Bearer");
        StatusRuntimeException wrong = failure(() -> jobs("not-a-token-0123456789")
                .listJobs(ListJobsRequest.getDefaultInstance()));
        assertThat(wrong.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);

        StatusRuntimeException readSubmits = failure(() -> jobs(READ).submitJob(SubmitJobRequest.newBuilder()
                .setJob(reverse("read may not submit", "x")).build()));
        assertThat(readSubmits.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(readSubmits.getStatus().getDescription()).contains("'submit'");

        Job job = submit(reverse("grpc-scopes", "x").toBuilder().setCronExpr("0 5 * * *").build());
        assertThat(failure(() -> jobs(READ).pauseJob(JobIdRequest.newBuilder().setId(job.getId()).build()))
                .getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(jobs(OPERATE).pauseJob(JobIdRequest.newBuilder().setId(job.getId()).build()).getStatus())
                .isEqualTo("paused");

        // submit:reverse may submit reverse jobs, not shell ones
        assertThat(jobs(REVERSE_ONLY).submitJob(SubmitJobRequest.newBuilder().setJob(reverse("mine", "x")).build())
                .getCreated()).isTrue();
        StatusRuntimeException shell = failure(() -> jobs(REVERSE_ONLY).submitJob(SubmitJobRequest.newBuilder()
                .setJob(shell("not mine", "true")).build()));
        assertThat(shell.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(shell.getStatus().getDescription()).contains("submit:shell");

        // health and reflection need no token
        assertThat(HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance()).getStatus())
                .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    @Test
    void reflectionListsTheServices() throws Exception {
        BlockingQueue<ServerReflectionResponse> answers = new LinkedBlockingQueue<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel).serverReflectionInfo(
                new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse value) {
                        answers.add(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        ServerReflectionResponse answer = answers.poll(30, TimeUnit.SECONDS);
        requests.onCompleted();
        assertThat(answer).as("a reflection answer").isNotNull();
        assertThat(answer.getListServicesResponse().getServiceList()).extracting(s -> s.getName())
                .contains("forgeflow.v1.JobService", "forgeflow.v1.RunService", "forgeflow.v1.QueueService",
                        "forgeflow.v1.ScheduleService", "forgeflow.v1.ClusterService", "grpc.health.v1.Health");
    }

    @Test
    void runsAreCancelledAndDeadOnesRequeued() throws Exception {
        Job failing = submit(shell("grpc-dead", "exit 3").toBuilder().setMaxAttempts(1).build());
        Run dead = awaitRun(failing.getId(), "dead");
        assertThat(runs(READ).listRuns(ListRunsRequest.newBuilder().setStatus("dead").build()).getRunsList())
                .extracting(Run::getId).contains(dead.getId());
        Run requeued = runs(OPERATE).requeueRun(RunIdRequest.newBuilder().setId(dead.getId()).build());
        assertThat(requeued.getStatus()).isEqualTo("pending");

        Job later = submit(reverse("grpc-later", "x").toBuilder()
                .setRunAt(com.google.protobuf.Timestamp.newBuilder().setSeconds(4_000_000_000L)).build());
        Run pending = latestRun(later.getId());
        assertThat(runs(OPERATE).cancelRun(RunIdRequest.newBuilder().setId(pending.getId()).build()).getStatus())
                .isEqualTo("cancelled");
        assertThat(runs(OPERATE).cancelRun(RunIdRequest.newBuilder().setId(pending.getId()).build()).getStatus())
                .as("cancelling again answers the cancelled run, as REST does").isEqualTo("cancelled");
    }

    @Test
    void queuesScheduleAndCluster() throws Exception {
        QueueServiceGrpc.QueueServiceBlockingStub queues = QueueServiceGrpc.newBlockingStub(as(OPERATE));
        submit(reverse("grpc-queued", "x").toBuilder().setQueue("grpc-q").setRunAt(
                com.google.protobuf.Timestamp.newBuilder().setSeconds(4_000_000_000L)).build());
        Queue limited = queues.configureQueue(ConfigureQueueRequest.newBuilder().setName("grpc-q")
                .setUpdateMask(FieldMask.newBuilder().addPaths("max_running").addPaths("rate_limit"))
                .setMaxRunning(2).setRateLimit(RateLimit.newBuilder().setCount(10).setPerSeconds(60)).build());
        assertThat(limited.getMaxRunning()).isEqualTo(2);
        assertThat(limited.getRateLimit().getCount()).isEqualTo(10);
        assertThat(queues.pauseQueue(QueueNameRequest.newBuilder().setName("grpc-q").build()).getPaused()).isTrue();
        assertThat(queues.resumeQueue(QueueNameRequest.newBuilder().setName("grpc-q").build()).getPaused()).isFalse();
        assertThat(queues.listQueues(ListQueuesRequest.getDefaultInstance()).getQueuesList())
                .extracting(Queue::getName).contains("grpc-q");
        assertThat(queues.getQueue(QueueNameRequest.newBuilder().setName("grpc-q").build()).getPending())
                .isGreaterThanOrEqualTo(1);

        PreviewResponse preview = ScheduleServiceGrpc.newBlockingStub(as(READ)).preview(PreviewRequest.newBuilder()
                .setCronExpr("0 9 * * *").setTimezone("Europe/Berlin").setCount(3).build());
        assertThat(preview.getFiresList()).hasSize(3);
        assertThat(preview.getFires(0).getLocal()).contains("T09:00:00+0");
        StatusRuntimeException badCron = failure(() -> ScheduleServiceGrpc.newBlockingStub(as(READ))
                .preview(PreviewRequest.newBuilder().setCronExpr("every tuesday").build()));
        assertThat(badCron.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);

        ClusterServiceGrpc.ClusterServiceBlockingStub cluster = ClusterServiceGrpc.newBlockingStub(as(READ));
        assertThat(cluster.getStats(GetStatsRequest.getDefaultInstance()).getRunsMap()).containsKey("pending");
        long end = System.nanoTime() + WITHIN.toNanos(); // the node's first heartbeat may be on its way
        while (cluster.listNodes(ListNodesRequest.getDefaultInstance()).getNodesCount() == 0
                && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertThat(cluster.listNodes(ListNodesRequest.getDefaultInstance()).getNodesList())
                .anySatisfy(n -> {
                    assertThat(n.getWorkerId()).isEqualTo("grpc-worker");
                    assertThat(n.getRolesList()).contains("api", "worker", "scheduler");
                    assertThat(n.getGrpcAddress()).isEqualTo("127.0.0.1:" + port());
                    assertThat(n.getWakeUps()).isEqualTo("notify");
                    assertThat(n.getLeadership()).isEqualTo("advisory_lock");
                    assertThat(n.getConnections().getPoolMax()).isPositive();
                });
    }

    static TenantServiceGrpc.TenantServiceBlockingStub tenants(String token) {
        return TenantServiceGrpc.newBlockingStub(as(token)).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    static ConfigureTenantRequest.Builder configure(String tenant, String... mask) {
        return ConfigureTenantRequest.newBuilder().setName(tenant)
                .setUpdateMask(FieldMask.newBuilder().addAllPaths(List.of(mask)));
    }

    static String tenantRow(String tenant) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT coalesce((SELECT concat_ws(',', weight, max_running, "
                + "rate_count, rate_per_seconds) FROM tenants WHERE name = :name), 'none')").bind("name", tenant)
                .mapTo(String.class).one());
    }

    @Test
    void tenantsWeightsAndLimitsAreListedReadAndSetByAdminWithRestsChecks() throws Exception {
        String tenant = "grpc-fair-" + UUID.randomUUID().toString().substring(0, 8);
        jobs(ADMIN, tenant).submitJob(request(idle("grpc-fair-job")));
        Tenant set = tenants(ADMIN).configureTenant(configure(tenant, "weight", "max_running", "rate_limit")
                .setWeight(3).setMaxRunning(5).setRateLimit(RateLimit.newBuilder().setCount(10).setPerSeconds(60))
                .build());
        assertThat(set.getName()).isEqualTo(tenant);
        assertThat(set.getWeight()).isEqualTo(3);
        assertThat(set.getMaxRunning()).isEqualTo(5);
        assertThat(set.getRateLimit().getCount()).isEqualTo(10);
        assertThat(set.getRateLimit().getPerSeconds()).isEqualTo(60);
        assertThat(set.getPending()).isEqualTo(1);
        assertThat(set.getRunning()).isZero();
        assertThat(tenantRow(tenant)).isEqualTo("3,5,10,60");

        // fields the mask does not name keep their value; a named field left unset clears the limit
        Tenant cleared = tenants(ADMIN).configureTenant(configure(tenant, "max_running").build());
        assertThat(cleared.hasMaxRunning()).isFalse();
        assertThat(cleared.getWeight()).isEqualTo(3);
        assertThat(cleared.hasRateLimit()).isTrue();
        // ... and an unset weight is the default, 1
        Tenant reset = tenants(ADMIN).configureTenant(configure(tenant, "weight", "rate_limit").build());
        assertThat(reset.getWeight()).isEqualTo(1);
        assertThat(reset.hasRateLimit()).isFalse();
        assertThat(tenantRow(tenant)).isEqualTo("1");
        tenants(ADMIN).configureTenant(configure(tenant, "weight").setWeight(7).build());

        // read lists and reads them: every known tenant, default always; a name nobody uses reads as idle
        assertThat(tenants(READ).listTenants(ListTenantsRequest.getDefaultInstance()).getTenantsList())
                .extracting(Tenant::getName).contains("default", tenant);
        Tenant read = tenants(READ).getTenant(TenantNameRequest.newBuilder().setName(tenant).build());
        assertThat(read.getWeight()).isEqualTo(7);
        assertThat(read.getPending()).isEqualTo(1);
        Tenant idle = tenants(READ).getTenant(TenantNameRequest.newBuilder().setName("grpc-nobody").build());
        assertThat(idle.getWeight()).isEqualTo(1);
        assertThat(idle.hasMaxRunning()).isFalse();
        assertThat(idle.getPending()).isZero();

        // bad input is INVALID_ARGUMENT naming the field, with REST's words; nothing changes
        Map<String, ConfigureTenantRequest> bad = new LinkedHashMap<>();
        bad.put("weight", configure(tenant, "weight").setWeight(0).build());
        bad.put("weight ", configure(tenant, "weight").setWeight(1001).build());
        bad.put("max_running", configure(tenant, "max_running").setMaxRunning(0).build());
        bad.put("rate_limit.count", configure(tenant, "rate_limit").setRateLimit(RateLimit.newBuilder()
                .setCount(0).setPerSeconds(60)).build());
        bad.put("rate_limit.per_seconds", configure(tenant, "rate_limit").setRateLimit(RateLimit.newBuilder()
                .setCount(5).setPerSeconds(0)).build());
        bad.put("update_mask", configure(tenant, "paused").build());
        bad.put("name", configure("Not A Tenant", "weight").setWeight(2).build());
        for (Map.Entry<String, ConfigureTenantRequest> e : bad.entrySet()) {
            StatusRuntimeException refused = failure(() -> tenants(ADMIN).configureTenant(e.getValue()));
            assertThat(refused.getStatus().getCode()).as(e.getKey()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(badRequestField(refused)).isEqualTo(e.getKey().strip());
            assertThat(reason(refused)).isEqualTo("validation_failed");
            assertThat(refused.getStatus().getDescription()).startsWith(e.getKey().strip() + " ");
        }
        assertThat(failure(() -> tenants(ADMIN).configureTenant(configure(tenant, "weight").setWeight(1001).build()))
                .getStatus().getDescription()).contains("from 1 to 1000");
        StatusRuntimeException badName = failure(() -> tenants(READ).getTenant(TenantNameRequest.newBuilder()
                .setName("Not A Tenant").build()));
        assertThat(badName.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(badName)).isEqualTo("name");

        // setting them needs admin, as REST's PUT
        StatusRuntimeException operate = failure(() -> tenants(OPERATE).configureTenant(configure(tenant, "weight")
                .setWeight(9).build()));
        assertThat(operate.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(operate.getStatus().getDescription()).contains("'admin'");
        assertThat(tenantRow(tenant)).isEqualTo("7");
        assertThat(tenantRow("Not A Tenant")).isEqualTo("none");
    }

    @Test
    void restsNodeListShowsWhichNodesServeGrpc() throws Exception {
        long end = System.nanoTime() + WITHIN.toNanos(); // the first heartbeat may be on its way
        com.fasterxml.jackson.databind.JsonNode nodes;
        do {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + APP.getLocalPort() + "/api/nodes")).header("Authorization", "Bearer " + READ).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);
            nodes = new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer.body()).get("items");
            if (nodes.size() > 0) {
                break;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < end);
        assertThat(nodes.size()).as("nodes listed").isEqualTo(1);
        assertThat(nodes.get(0).get("grpc").asText()).isEqualTo("127.0.0.1:" + port());
        assertThat(nodes.get(0).get("database_pooling").asText()).as("no session URL: direct").isEqualTo("direct");
        assertThat(nodes.get(0).get("wake_ups").asText()).isEqualTo("notify");
        assertThat(nodes.get(0).get("leadership").asText()).isEqualTo("advisory_lock");
        assertThat(nodes.get(0).get("connections").get("sessions").asInt()).as("LISTEN, and the lock once it leads")
                .isBetween(1, 2);
    }

    /** Collects a WatchRuns stream's events on a queue. */
    static final class Watch implements AutoCloseable {
        final BlockingQueue<RunEvent> events = new LinkedBlockingQueue<>();
        final Context.CancellableContext context = Context.current().withCancellation();
        volatile Throwable error;

        Watch(WatchRunsRequest request) {
            context.run(() -> RunServiceGrpc.newStub(as(READ)).watchRuns(request, new StreamObserver<>() {
                @Override
                public void onNext(RunEvent value) {
                    events.add(value);
                }

                @Override
                public void onError(Throwable t) {
                    error = t;
                }

                @Override
                public void onCompleted() {
                }
            }));
        }

        /** Events until one matches, or a failure naming what was seen. */
        List<RunEvent> until(Predicate<RunEvent> last) throws InterruptedException {
            List<RunEvent> seen = new ArrayList<>();
            long end = System.nanoTime() + WITHIN.toNanos();
            while (System.nanoTime() < end) {
                RunEvent e = events.poll(200, TimeUnit.MILLISECONDS);
                if (e != null) {
                    seen.add(e);
                    if (last.test(e)) {
                        return seen;
                    }
                } else if (error != null) {
                    fail("the stream failed: " + error + " after " + seen);
                }
            }
            return fail("no matching event within " + WITHIN + "; saw " + seen);
        }

        @Override
        public void close() {
            context.cancel(null);
        }
    }

    String restSubmit(String body) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + APP.getLocalPort() + "/api/jobs")).header("Authorization", "Bearer " + ADMIN)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer.body()).get("id").asText();
    }

    static List<String> statusesOf(List<RunEvent> events, String jobId) {
        return events.stream().filter(RunEvent::hasChange).filter(e -> e.getChange().getJobId().equals(jobId))
                .map(e -> e.getChange().getStatus()).toList();
    }

    @Test
    void watchRunsSeesARestSubmittedJobGoPendingRunningSucceeded() throws Exception {
        try (Watch watch = new Watch(WatchRunsRequest.getDefaultInstance())) {
            // the stream is open once the node has it: a first event or none; give it a job of its own to see
            String jobId = restSubmit("{\"name\": \"grpc-watched\", \"executor\": \"reverse\", "
                    + "\"payload\": {\"text\": \"abc\"}}");
            List<RunEvent> seen = watch.until(e -> e.hasChange() && e.getChange().getJobId().equals(jobId)
                    && e.getChange().getStatus().equals("succeeded"));
            assertThat(statusesOf(seen, jobId)).containsExactly("pending", "running", "succeeded");
            RunEvent done = seen.get(seen.size() - 1);
            assertThat(done.getChange().getWorkerId()).isEqualTo("grpc-worker");
            assertThat(done.getId()).contains("-");
        }
    }

    @Test
    void watchRunsFiltersByJobStatusAndQueue() throws Exception {
        String other = restSubmit("{\"name\": \"grpc-unwatched\", \"executor\": \"reverse\", \"payload\": {\"text\": \"a\"}}");
        Job watched = submit(reverse("grpc-filtered", "b").toBuilder().setQueue("grpc-watch-q").setRunAt(
                com.google.protobuf.Timestamp.newBuilder().setSeconds(Instant_now() + 2)).build());
        try (Watch byJob = new Watch(WatchRunsRequest.newBuilder().setJobId(watched.getId())
                .addStatuses("succeeded").build());
             Watch byQueue = new Watch(WatchRunsRequest.newBuilder().setQueue("grpc-watch-q").build())) {
            List<RunEvent> seen = byJob.until(e -> e.hasChange() && e.getChange().getStatus().equals("succeeded"));
            assertThat(seen).allSatisfy(e -> {
                assertThat(e.getChange().getJobId()).isEqualTo(watched.getId());
                assertThat(e.getChange().getStatus()).isEqualTo("succeeded");
            });
            List<RunEvent> queued = byQueue.until(e -> e.hasChange() && e.getChange().getStatus().equals("succeeded"));
            assertThat(queued).allSatisfy(e -> {
                assertThat(e.getChange().getJobId()).isNotEqualTo(other);
                assertThat(e.getChange().getQueue()).isEqualTo("grpc-watch-q");
            });
        }
    }

    static long Instant_now() {
        return java.time.Instant.now().getEpochSecond();
    }

    @Test
    void aResumedStreamMissesNothing() throws Exception {
        String lastId;
        String firstJob;
        try (Watch watch = new Watch(WatchRunsRequest.getDefaultInstance())) {
            firstJob = restSubmit("{\"name\": \"grpc-before\", \"executor\": \"reverse\", \"payload\": {\"text\": \"a\"}}");
            List<RunEvent> seen = watch.until(e -> e.hasChange() && e.getChange().getJobId().equals(firstJob)
                    && e.getChange().getStatus().equals("succeeded"));
            lastId = seen.get(seen.size() - 1).getId();
        }
        // while no stream is open: a job runs to its end
        String missed = restSubmit("{\"name\": \"grpc-missed\", \"executor\": \"reverse\", \"payload\": {\"text\": \"b\"}}");
        awaitRun(missed, "succeeded");
        try (Watch resumed = new Watch(WatchRunsRequest.newBuilder().setLastEventId(lastId).build())) {
            List<RunEvent> replayed = resumed.until(e -> e.hasChange() && e.getChange().getJobId().equals(missed)
                    && e.getChange().getStatus().equals("succeeded"));
            assertThat(replayed).noneMatch(RunEvent::hasReset);
            assertThat(statusesOf(replayed, missed)).containsExactly("pending", "running", "succeeded");
            assertThat(statusesOf(replayed, firstJob)).as("nothing from before the last id seen").isEmpty();
            Iterator<RunEvent> it = replayed.iterator();
            long previous = Long.parseLong(lastId.substring(lastId.lastIndexOf('-') + 1));
            while (it.hasNext()) {
                String id = it.next().getId();
                long sequence = Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
                assertThat(sequence).as("ids follow on, one by one, from " + lastId).isEqualTo(previous + 1);
                previous = sequence;
            }
        }
        try (Watch unknown = new Watch(WatchRunsRequest.newBuilder().setLastEventId("elsewhere-5").build())) {
            assertThat(unknown.until(RunEvent::hasReset)).hasSize(1);
        }
    }

    /**
     * A client in another language: examples/python-grpc/run.sh generates Python stubs with protoc and submits a job,
     * watching it finish. Needs python3-grpcio, python3-protobuf, protobuf-compiler and protobuf-compiler-grpc (CI
     * installs them, docs/ci.md); without them this test is skipped, saying which is missing.
     */
    @Test
    void aPythonClientSubmitsAJobAndWatchesItFinish() throws Exception {
        String missing = !new java.io.File("/usr/bin/grpc_python_plugin").canExecute()
                || !new java.io.File("/usr/bin/protoc").canExecute() ? "protobuf-compiler(-grpc) is not installed"
                : new ProcessBuilder("/usr/bin/python3", "-c", "import grpc").start().waitFor() != 0
                ? "python3-grpcio is not installed" : null;
        if (missing != null && "true".equalsIgnoreCase(System.getenv("CI"))) {
            fail(missing + "; CI must run this check (.ci/run installs it)");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(missing == null, missing);
        ProcessBuilder run = new ProcessBuilder("sh", "../examples/python-grpc/run.sh").redirectErrorStream(true);
        run.environment().put("FORGEFLOW_GRPC_ADDR", "127.0.0.1:" + port());
        run.environment().put("FORGEFLOW_GRPC_CA", TLS.resolve("cert.pem").toString());
        run.environment().put("FORGEFLOW_TOKEN", ADMIN);
        run.environment().put("FORGEFLOW_EXECUTOR", "reverse");
        Process process = run.start();
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).contains("submitted job").contains(" pending").contains(" running").contains(" succeeded");
    }

    /**
     * Issue 44 end to end on a node: a shell job snoozes (exit 75) on its first attempt and succeeds on the next, one
     * attempt allowed; another gives up (exit 76). gRPC and REST show the snoozes and the history, metrics count them.
     */
    @Test
    void aShellJobSnoozesWithoutSpendingAnAttemptAndAnotherGivesUp() throws Exception {
        Job snoozing = submit(shell("grpc-snooze", "if [ \"$FORGEFLOW_ATTEMPT\" = 1 ]; then "
                + "echo FORGEFLOW_SNOOZE_SECONDS=0; exit 75; fi; echo ready").toBuilder().setMaxAttempts(1).build());
        Job hopeless = submit(shell("grpc-give-up", "echo FORGEFLOW_GIVE_UP_REASON=account closed; exit 76")
                .toBuilder().setMaxAttempts(5).build());

        Run succeeded = awaitRun(snoozing.getId(), "succeeded");
        Run cancelled = awaitRun(hopeless.getId(), "cancelled");

        assertThat(succeeded.getSnoozes()).isEqualTo(1);
        assertThat(succeeded.getAttempt()).isEqualTo(2);
        assertThat(cancelled.getSnoozes()).isZero();
        assertThat(cancelled.getError()).isEqualTo("gave up: account closed");
        assertThat(cancelled.getAttempt()).isEqualTo(1);
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + APP.getLocalPort() + "/api/runs/" + succeeded.getId())).header("Authorization", "Bearer " + READ)
                .build(), HttpResponse.BodyHandlers.ofString());
        com.fasterxml.jackson.databind.JsonNode run = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(answer.body());
        assertThat(run.get("snoozes").asInt()).isEqualTo(1);
        assertThat(run.get("attempts").get(0).get("outcome").asText()).isEqualTo("snoozed");
        assertThat(run.get("attempts").get(0).get("error").asText()).isEqualTo("snoozed for 0s");
        assertThat(run.get("attempts").get(1).get("outcome").asText()).isEqualTo("succeeded");
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + APP.getAdminPort() + "/prometheus")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).containsPattern("forgeflow_attempts_total\\{executor=\"shell\",outcome=\"snoozed\"\\} [1-9]")
                .containsPattern("forgeflow_attempts_total\\{executor=\"shell\",outcome=\"gave_up\"\\} [1-9]");
    }

    /**
     * Issue 44: a sequence submitted over gRPC and REST: the second run waits behind the first (a slow one), then
     * both run, in order; the job shows its sequence on both APIs.
     */
    @Test
    void runsOfOneSequenceStartOneAtATimeInSubmissionOrderOverGrpcAndRest() throws Exception {
        Job first = submit(shell("grpc-seq-1", "sleep 0.5; date +%s%N").toBuilder().setSequenceKey("grpc-order-1")
                .build());
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + APP.getLocalPort() + "/api/jobs")).header("Authorization", "Bearer " + ADMIN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"rest-seq-2\", \"executor\": \"shell\", "
                        + "\"payload\": {\"command\": \"date +%s%N\"}, \"sequence_key\": \"grpc-order-1\", "
                        + "\"on_dead\": \"continue\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        com.fasterxml.jackson.databind.JsonNode second = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(answer.body());
        assertThat(second.get("sequence_key").asText()).isEqualTo("grpc-order-1");
        assertThat(second.get("on_dead").asText()).isEqualTo("continue");
        assertThat(first.getSpec().getSequenceKey()).isEqualTo("grpc-order-1");
        assertThat(first.getSpec().getOnDead()).isEqualTo("block");
        String secondId = second.get("id").asText();
        assertThat(latestRun(secondId).getStatus()).as("behind the first").isIn("waiting");

        Run one = awaitRun(first.getId(), "succeeded");
        Run two = awaitRun(secondId, "succeeded");
        assertThat(Long.parseLong(two.getOutput().strip())).as("the second started after the first ended")
                .isGreaterThan(Long.parseLong(one.getOutput().strip()));
        assertThat(failure(() -> submit(shell("grpc-seq-bad", "true").toBuilder().setSequenceKey("k")
                .setOnDead("skip").build())).getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }

    /**
     * Issue 44: a debounce over gRPC and REST joins the same run (the answer names it); a throttle is stored and shown;
     * a bad part is INVALID_ARGUMENT naming it.
     */
    @Test
    void aDebounceJoinsSubmissionsOverGrpcAndRestAndAThrottleIsShown() throws Exception {
        io.forgeflow.adapter.grpc.v1.Debounce debounce = io.forgeflow.adapter.grpc.v1.Debounce.newBuilder()
                .setKey("grpc-profile").setPeriodSeconds(60).build();
        SubmitJobResponse first = jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                .setJob(shell("grpc-debounce", "echo one").toBuilder().setDebounce(debounce)).build());
        assertThat(first.getCreated()).isTrue();
        assertThat(first.hasDebouncedInto()).isFalse();
        assertThat(first.getJob().getSpec().getDebounce().getEdge()).isEqualTo("trailing");
        assertThat(first.getJob().getSpec().getDebounce().getMaxWaitSeconds()).isEqualTo(600);
        String runId = latestRun(first.getJob().getId()).getId();
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + APP.getLocalPort() + "/api/jobs")).header("Authorization", "Bearer " + ADMIN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"rest-debounce\", \"executor\": \"shell\", "
                        + "\"payload\": {\"command\": \"echo two\"}, \"debounce\": {\"key\": \"grpc-profile\", "
                        + "\"period_seconds\": 60}}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        com.fasterxml.jackson.databind.JsonNode joined = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(answer.body());
        assertThat(joined.get("debounced_into").asText()).isEqualTo(runId);
        assertThat(joined.get("id").asText()).isEqualTo(first.getJob().getId());
        assertThat(joined.get("payload").get("command").asText()).isEqualTo("echo two");
        SubmitJobResponse third = jobs(ADMIN).submitJob(SubmitJobRequest.newBuilder()
                .setJob(shell("grpc-debounce", "echo three").toBuilder().setDebounce(debounce)).build());
        assertThat(third.getCreated()).isFalse();
        assertThat(third.getDebouncedInto()).isEqualTo(runId);

        Job throttled = submit(shell("grpc-throttle", "true").toBuilder().setThrottle(io.forgeflow.adapter.grpc.v1
                .Throttle.newBuilder().setKey("partner:7").setCount(5).setPerSeconds(2)).build());
        assertThat(throttled.getSpec().getThrottle().getKey()).isEqualTo("partner:7");
        assertThat(throttled.getSpec().getThrottle().getCount()).isEqualTo(5);
        awaitRun(throttled.getId(), "succeeded");
        StatusRuntimeException bad = failure(() -> submit(shell("grpc-throttle-bad", "true").toBuilder()
                .setThrottle(io.forgeflow.adapter.grpc.v1.Throttle.newBuilder().setKey("k").setCount(0)
                        .setPerSeconds(2)).build()));
        assertThat(bad.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(bad.getStatus().getDescription()).contains("throttle.count");
    }

    @Test
    void theNodeServesOnlyTlsWithItsCertificate() throws Exception {
        assertThat(jobs(READ).listJobs(ListJobsRequest.newBuilder().build())).as("over TLS").isNotNull();
        ManagedChannel plaintext = NettyChannelBuilder.forAddress("127.0.0.1", port()).usePlaintext().build();
        ManagedChannel untrusting = tlsChannel(null); // the JDK's trusted authorities: not this certificate
        try {
            for (ManagedChannel other : List.of(plaintext, untrusting)) {
                StatusRuntimeException refused = failure(() -> HealthGrpc.newBlockingStub(other)
                        .withDeadlineAfter(30, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance()));
                assertThat(refused.getStatus().getCode()).as(refused.toString()).isEqualTo(Status.Code.UNAVAILABLE);
            }
        } finally {
            plaintext.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            untrusting.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /**
     * An operator's psql session holds the job's row. A pause with a 1 s deadline is DEADLINE_EXCEEDED, and the node
     * stops waiting for the row at that deadline (the node's lock_timeout is 60 s here): when the session ends, the job
     * is still active. Failed before the deadline reached the database: the node waited on, and paused the job the
     * moment psql let go, after its caller had been told the call failed.
     */
    @Test
    void aCallPastItsDeadlineStopsWaitingOnTheDatabaseAndChangesNothing() throws Exception {
        Job job = submit(reverse("grpc-deadline", "abc").toBuilder().setCronExpr("0 3 * * *").build());
        try (PsqlSession operator = PsqlSession.hold(pg, HOLDER,
                "SELECT id FROM forgeflow.jobs WHERE id = '" + job.getId() + "' FOR UPDATE", 60)) {
            StatusRuntimeException late = failure(() -> JobServiceGrpc.newBlockingStub(as(OPERATE))
                    .withDeadlineAfter(1, TimeUnit.SECONDS).pauseJob(JobIdRequest.newBuilder().setId(job.getId())
                            .build()));
            assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int waiting;
            do {
                waiting = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity "
                        + "WHERE datname = current_database() AND wait_event_type = 'Lock'").mapTo(Integer.class).one());
                if (waiting > 0) {
                    Thread.sleep(100);
                }
            } while (waiting > 0 && System.nanoTime() < end);
            assertThat(waiting).as("the node's statements still waiting on the row after the call's deadline")
                    .isZero();
        }
        assertThat(jobs(READ).getJob(GetJobRequest.newBuilder().setId(job.getId()).build()).getStatus())
                .as("the pause its caller was told failed").isEqualTo("active");
    }

    @Test
    void callsAreCountedByMethodAndCode() throws Exception {
        failure(() -> jobs(READ).getJob(GetJobRequest.newBuilder().setId("missing-for-metrics").build()));
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + APP.getAdminPort() + "/prometheus")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).contains("forgeflow_grpc_calls_total{code=\"NOT_FOUND\",method=\"forgeflow.v1.JobService/GetJob\"}");
    }

    // ---------------------------------------------------------------- tenants (issue 42)

    /** The token's channel acting in {@code tenant} (x-forgeflow-tenant metadata; null: none sent). */
    static Channel as(String token, String tenant) {
        Metadata md = new Metadata();
        md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        if (tenant != null) {
            md.put(Metadata.Key.of("x-forgeflow-tenant", Metadata.ASCII_STRING_MARSHALLER), tenant);
        }
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(md));
    }

    static JobServiceGrpc.JobServiceBlockingStub jobs(String token, String tenant) {
        return JobServiceGrpc.newBlockingStub(as(token, tenant)).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    static RunServiceGrpc.RunServiceBlockingStub runs(String token, String tenant) {
        return RunServiceGrpc.newBlockingStub(as(token, tenant)).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    static final com.google.protobuf.Timestamp FAR = com.google.protobuf.Timestamp.newBuilder()
            .setSeconds(java.time.Instant.parse("2099-01-01T00:00:00Z").getEpochSecond()).build();

    /** A job no node claims (no node runs noop), due far ahead: nothing changes its rows but the API. */
    static JobSpec idle(String name) {
        return JobSpec.newBuilder().setName(name).setExecutor("noop").setPayload(Struct.getDefaultInstance())
                .setRunAt(FAR).build();
    }

    static SubmitJobRequest request(JobSpec spec) {
        return SubmitJobRequest.newBuilder().setJob(spec).build();
    }

    /** Every row of tenant beta as text: what acme's refused calls must not change. */
    static String betaRows() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT coalesce((SELECT string_agg(j::text, '|' ORDER BY j.id) "
                + "FROM jobs j WHERE tenant = 'beta'), '') || coalesce((SELECT string_agg(r::text, '|' ORDER BY r.id) "
                + "FROM runs r WHERE tenant = 'beta'), '') || coalesce((SELECT string_agg(b::text, '|' ORDER BY b.id) "
                + "FROM batches b WHERE tenant = 'beta'), '')").mapTo(String.class).one());
    }

    /** {@code call} on {@code target} (another tenant's) fails exactly as on an unknown id: NOT_FOUND, same words. */
    static void assertNotFoundAsUnknown(String what, Function<String, Object> call, String target, String unknown) {
        StatusRuntimeException theirs = failure(() -> call.apply(target));
        StatusRuntimeException none = failure(() -> call.apply(unknown));
        assertThat(theirs.getStatus().getCode()).as(what + ": " + theirs.getStatus()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(none.getStatus().getCode()).as(what + " (unknown id): " + none.getStatus())
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(theirs.getStatus().getDescription().replace(target, "ID")).as(what)
                .isEqualTo(none.getStatus().getDescription().replace(unknown, "ID"));
        assertThat(StatusProto.fromThrowable(theirs).getDetailsList()).as(what)
                .isEqualTo(StatusProto.fromThrowable(none).getDetailsList());
    }

    @Test
    void aTenantBoundTokenGetsTheNotFoundOfAnUnknownIdForAnotherTenantsObjectsMethodByMethod() throws Exception {
        Job job = jobs(BETA).submitJob(request(idle("grpc-beta-owned"))).getJob();
        Job cron = jobs(BETA).submitJob(request(idle("grpc-beta-cron").toBuilder().clearRunAt()
                .setCronExpr("0 3 * * *").build())).getJob();
        String run = runs(BETA).listRuns(ListRunsRequest.newBuilder().setJobId(job.getId()).build()).getRuns(0).getId();
        SubmitBatchResponse batch = jobs(BETA).submitBatch(SubmitBatchRequest.newBuilder()
                .addJobs(BatchJob.newBuilder().setJob(idle("grpc-beta-batched"))).build());
        assertThat(job.getTenant()).isEqualTo("beta");
        assertThat(batch.getTenant()).isEqualTo("beta");
        String before = betaRows();
        String unknown = UUID.randomUUID().toString();

        Map<String, Function<String, Object>> onJobs = new LinkedHashMap<>();
        onJobs.put("GetJob", id -> jobs(ACME).getJob(GetJobRequest.newBuilder().setId(id).build()));
        onJobs.put("UpdateJob", id -> jobs(ACME).updateJob(UpdateJobRequest.newBuilder().setId(id)
                .setJob(JobSpec.newBuilder().setPriority(1)).setUpdateMask(FieldMask.newBuilder().addPaths("priority"))
                .build()));
        onJobs.put("UpdateJob without a mask", id -> jobs(ACME).updateJob(UpdateJobRequest.newBuilder().setId(id)
                .build()));
        onJobs.put("PauseJob", id -> jobs(ACME).pauseJob(JobIdRequest.newBuilder().setId(id).build()));
        onJobs.put("PauseJob with a note too long", id -> jobs(ACME).pauseJob(JobIdRequest.newBuilder().setId(id)
                .setNote("n".repeat(501)).build()));
        onJobs.put("ResumeJob", id -> jobs(ACME).resumeJob(JobIdRequest.newBuilder().setId(id).build()));
        onJobs.put("CancelJob", id -> jobs(ACME).cancelJob(JobIdRequest.newBuilder().setId(id).build()));
        onJobs.put("TriggerJob", id -> jobs(ACME).triggerJob(JobIdRequest.newBuilder().setId(id).build()));
        onJobs.put("DeleteJob", id -> jobs(ACME).deleteJob(DeleteJobRequest.newBuilder().setId(id).build()));
        onJobs.put("DeleteJob purge", id -> jobs(ACME).deleteJob(DeleteJobRequest.newBuilder().setId(id)
                .setPurge(true).setCancelRunning(true).build()));
        for (Map.Entry<String, Function<String, Object>> call : onJobs.entrySet()) {
            assertNotFoundAsUnknown(call.getKey(), call.getValue(), job.getId(), unknown);
        }
        Map<String, Function<String, Object>> onCron = new LinkedHashMap<>();
        com.google.protobuf.Timestamp april1 = com.google.protobuf.Timestamp.newBuilder()
                .setSeconds(java.time.Instant.parse("2026-04-01T00:00:00Z").getEpochSecond()).build();
        com.google.protobuf.Timestamp april3 = com.google.protobuf.Timestamp.newBuilder()
                .setSeconds(java.time.Instant.parse("2026-04-03T00:00:00Z").getEpochSecond()).build();
        onCron.put("BackfillJob", id -> jobs(ACME).backfillJob(io.forgeflow.adapter.grpc.v1.BackfillJobRequest
                .newBuilder().setId(id).setFrom(april1).setTo(april3).build()));
        onCron.put("BackfillJob backwards", id -> jobs(ACME).backfillJob(io.forgeflow.adapter.grpc.v1
                .BackfillJobRequest.newBuilder().setId(id).setFrom(april3).setTo(april1).build()));
        onCron.put("GetBackfill", id -> jobs(ACME).getBackfill(io.forgeflow.adapter.grpc.v1.GetBackfillRequest
                .newBuilder().setJobId(id).setBackfillId(UUID.randomUUID().toString()).build()));
        onCron.put("Preview", id -> ScheduleServiceGrpc.newBlockingStub(as(ACME)).preview(PreviewRequest.newBuilder()
                .setJobId(id).build()));
        onCron.put("Preview with a cron_expr too", id -> ScheduleServiceGrpc.newBlockingStub(as(ACME))
                .preview(PreviewRequest.newBuilder().setJobId(id).setCronExpr("0 4 * * *").setCount(500).build()));
        for (Map.Entry<String, Function<String, Object>> call : onCron.entrySet()) {
            assertNotFoundAsUnknown(call.getKey(), call.getValue(), cron.getId(), unknown);
        }
        assertNotFoundAsUnknown("GetRun", id -> runs(ACME).getRun(GetRunRequest.newBuilder().setId(id).build()), run,
                unknown);
        assertNotFoundAsUnknown("CancelRun", id -> runs(ACME).cancelRun(RunIdRequest.newBuilder().setId(id).build()),
                run, unknown);
        assertNotFoundAsUnknown("RequeueRun", id -> runs(ACME).requeueRun(RunIdRequest.newBuilder().setId(id)
                .build()), run, unknown);
        assertThat(runs(ACME).listRuns(ListRunsRequest.newBuilder().setJobId(job.getId()).build()).getRunsList())
                .as("another tenant's job's runs are not listed").isEmpty();

        assertThat(betaRows()).as("nothing of beta's changed").isEqualTo(before);
        // the owner still reaches all of it; a cluster-wide token acting in acme is held to acme as well
        assertThat(jobs(BETA).getJob(GetJobRequest.newBuilder().setId(job.getId()).build()).getTenant())
                .isEqualTo("beta");
        assertThat(runs(BETA).getRun(GetRunRequest.newBuilder().setId(run).build()).getTenant()).isEqualTo("beta");
        assertThat(failure(() -> jobs(ADMIN, "acme").getJob(GetJobRequest.newBuilder().setId(job.getId()).build()))
                .getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(jobs(ADMIN).getJob(GetJobRequest.newBuilder().setId(job.getId()).build()).getTenant())
                .isEqualTo("beta");
    }

    @Test
    void theSameKeyInTwoTenantsMakesTwoJobsAndTheMetadataOrFieldPicksTheTenant() throws Exception {
        JobSpec keyed = idle("grpc-tenant-keyed").toBuilder().setIdempotencyKey("grpc-order-42").build();
        SubmitJobResponse acme = jobs(ACME).submitJob(request(keyed));
        SubmitJobResponse beta = jobs(BETA).submitJob(request(keyed));
        SubmitJobResponse acmeAgain = jobs(ACME).submitJob(request(keyed));
        SubmitJobResponse viaMetadata = jobs(ADMIN, "beta").submitJob(request(keyed));
        SubmitJobResponse viaField = jobs(ADMIN).submitJob(request(keyed).toBuilder().setTenant("beta").build());
        SubmitJobResponse inDefault = jobs(ADMIN).submitJob(request(keyed));

        assertThat(List.of(acme.getCreated(), beta.getCreated(), inDefault.getCreated())).containsOnly(true);
        assertThat(List.of(acmeAgain.getCreated(), viaMetadata.getCreated(), viaField.getCreated())).containsOnly(false);
        assertThat(List.of(acme.getJob().getId(), beta.getJob().getId(), inDefault.getJob().getId()))
                .doesNotHaveDuplicates();
        assertThat(acmeAgain.getJob().getId()).isEqualTo(acme.getJob().getId());
        assertThat(viaMetadata.getJob().getId()).isEqualTo(beta.getJob().getId());
        assertThat(viaField.getJob().getId()).isEqualTo(beta.getJob().getId());
        assertThat(List.of(acme.getJob().getTenant(), beta.getJob().getTenant(), inDefault.getJob().getTenant()))
                .containsExactly("acme", "beta", "default");
        assertThat(beta.getJob().getSpec().getIdempotencyKey()).as("shown as given").isEqualTo("grpc-order-42");

        ListJobsRequest named = ListJobsRequest.newBuilder().setNamePrefix("grpc-tenant-keyed").build();
        assertThat(jobs(ACME).listJobs(named).getJobsList()).extracting(Job::getId)
                .containsExactly(acme.getJob().getId());
        assertThat(jobs(BETA).listJobs(named).getJobsList()).extracting(Job::getId)
                .containsExactly(beta.getJob().getId());
        assertThat(jobs(ADMIN).listJobs(named).getJobsList()).hasSize(3);
        assertThat(jobs(ADMIN).listJobs(named.toBuilder().setTenant("beta").build()).getJobsList())
                .extracting(Job::getId).containsExactly(beta.getJob().getId());
        assertThat(jobs(ADMIN, "acme").listJobs(named).getJobsList()).extracting(Job::getId)
                .containsExactly(acme.getJob().getId());
        assertThat(runs(ACME).listRuns(ListRunsRequest.newBuilder().setPageSize(500).build()).getRunsList())
                .isNotEmpty().extracting(Run::getTenant).containsOnly("acme");
        assertThat(runs(ADMIN).listRuns(ListRunsRequest.newBuilder().setTenant("beta")
                .setJobId(beta.getJob().getId()).build()).getRunsList()).extracting(Run::getTenant)
                .containsExactly("beta");
        assertThat(runs(ADMIN, "acme").listRuns(ListRunsRequest.newBuilder().setJobId(beta.getJob().getId())
                .build()).getRunsList()).isEmpty();

        SubmitBatchRequest batch = SubmitBatchRequest.newBuilder().setIdempotencyKey("grpc-load-1")
                .addJobs(BatchJob.newBuilder().setJob(idle("grpc-tenant-batched"))).build();
        SubmitBatchResponse acmeBatch = jobs(ACME).submitBatch(batch);
        SubmitBatchResponse betaBatch = jobs(BETA).submitBatch(batch);
        SubmitBatchResponse acmeBatchAgain = jobs(ACME).submitBatch(batch);
        assertThat(acmeBatch.getCreated()).isTrue();
        assertThat(betaBatch.getCreated()).isTrue();
        assertThat(betaBatch.getBatchId()).isNotEqualTo(acmeBatch.getBatchId());
        assertThat(List.of(acmeBatch.getTenant(), betaBatch.getTenant())).containsExactly("acme", "beta");
        assertThat(acmeBatchAgain.getCreated()).isFalse();
        assertThat(acmeBatchAgain.getBatchId()).isEqualTo(acmeBatch.getBatchId());
        String batchedTenant = pg.jdbi().withHandle(h -> h.createQuery("SELECT tenant FROM jobs "
                + "WHERE id = CAST(:id AS uuid)").bind("id", betaBatch.getJobIds(0)).mapTo(String.class).one());
        assertThat(batchedTenant).isEqualTo("beta");
    }

    @Test
    void aTenantBoundTokenMayNotNameAnotherTenantNorCallClusterWideMethods() throws Exception {
        List<Runnable> namingBeta = List.of(
                () -> jobs(ACME, "beta").listJobs(ListJobsRequest.getDefaultInstance()),
                () -> jobs(ACME, "beta").submitJob(request(idle("grpc-forbidden"))),
                () -> jobs(ACME).submitJob(request(idle("grpc-forbidden")).toBuilder().setTenant("beta").build()),
                () -> jobs(ACME).listJobs(ListJobsRequest.newBuilder().setTenant("beta").build()),
                () -> runs(ACME).listRuns(ListRunsRequest.newBuilder().setTenant("beta").build()),
                () -> jobs(ACME).submitBatch(SubmitBatchRequest.newBuilder().setTenant("beta")
                        .addJobs(BatchJob.newBuilder().setJob(idle("grpc-forbidden"))).build()));
        for (Runnable call : namingBeta) {
            StatusRuntimeException refused = failure(call);
            assertThat(refused.getStatus().getCode()).as(refused.getStatus().toString())
                    .isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(reason(refused)).isEqualTo("tenant_forbidden");
            assertThat(refused.getStatus().getDescription()).contains("may not name tenant 'beta'")
                    .doesNotContain(ACME);
        }
        // a parent in another tenant is as unknown to the child as a parent that does not exist
        String betaParent = jobs(BETA).submitJob(request(idle("grpc-beta-parent"))).getJob().getId();
        String unknownParent = UUID.randomUUID().toString();
        StatusRuntimeException theirs = failure(() -> jobs(ACME).submitJob(request(idle("grpc-forbidden")).toBuilder()
                .addDependsOn(betaParent).build()));
        StatusRuntimeException none = failure(() -> jobs(ACME).submitJob(request(idle("grpc-forbidden")).toBuilder()
                .addDependsOn(unknownParent).build()));
        assertThat(theirs.getStatus().getCode()).as(theirs.getStatus().toString()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(theirs)).isEqualTo("depends_on");
        assertThat(theirs.getStatus().getDescription().replace(betaParent, "ID"))
                .isEqualTo(none.getStatus().getDescription().replace(unknownParent, "ID"));
        // naming its own tenant is fine
        assertThat(jobs(ACME, "acme").submitJob(request(idle("grpc-own")).toBuilder().setTenant("acme").build())
                .getJob().getTenant()).isEqualTo("acme");

        // a queue is a tenant's: the bound token acts on its own tenant's, and the default tenant's is untouched
        QueueServiceGrpc.QueueServiceBlockingStub acmeQueues = QueueServiceGrpc.newBlockingStub(as(ACME_ADMIN));
        assertThat(acmeQueues.configureQueue(ConfigureQueueRequest.newBuilder().setName("grpc-acme-only")
                .setUpdateMask(FieldMask.newBuilder().addPaths("max_running")).setMaxRunning(1).build()).getTenant())
                .isEqualTo("acme");
        assertThat(acmeQueues.pauseQueue(QueueNameRequest.newBuilder().setName("grpc-acme-only").build()).getPaused())
                .isTrue();
        assertThat(acmeQueues.listQueues(ListQueuesRequest.getDefaultInstance()).getQueuesList())
                .allSatisfy(q -> assertThat(q.getTenant()).isEqualTo("acme"))
                .anySatisfy(q -> assertThat(q.getName()).isEqualTo("grpc-acme-only"));
        assertThat(QueueServiceGrpc.newBlockingStub(as(OPERATE)).getQueue(QueueNameRequest.newBuilder()
                .setName("grpc-acme-only").build()).getPaused()).as("the default tenant's queue of that name").isFalse();
        StatusRuntimeException otherTenant = failure(() -> acmeQueues.listQueues(ListQueuesRequest.newBuilder()
                .setTenant("beta").build()));
        assertThat(otherTenant.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(acmeQueues.resumeQueue(QueueNameRequest.newBuilder().setName("grpc-acme-only").build()).getPaused())
                .isFalse();

        List<Runnable> clusterWide = List.of(
                () -> tenants(ACME_ADMIN).listTenants(ListTenantsRequest.getDefaultInstance()),
                () -> tenants(ACME_ADMIN).getTenant(TenantNameRequest.newBuilder().setName("acme").build()),
                () -> tenants(ACME_ADMIN).configureTenant(configure("acme", "weight").setWeight(1000).build()),
                () -> ClusterServiceGrpc.newBlockingStub(as(ACME_ADMIN)).getStats(GetStatsRequest.getDefaultInstance()),
                () -> ClusterServiceGrpc.newBlockingStub(as(ACME_ADMIN)).listNodes(ListNodesRequest.getDefaultInstance()),
                () -> RunServiceGrpc.newBlockingStub(as(ACME_ADMIN)).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .watchRuns(WatchRunsRequest.getDefaultInstance()).hasNext());
        for (Runnable call : clusterWide) {
            StatusRuntimeException refused = failure(call);
            assertThat(refused.getStatus().getCode()).as(refused.getStatus().toString())
                    .isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(reason(refused)).isEqualTo("tenant_forbidden");
            assertThat(refused.getStatus().getDescription()).contains("is cluster-wide");
        }
        long forbidden = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM jobs "
                + "WHERE name = 'grpc-forbidden'").mapTo(Long.class).one());
        String queues = pg.jdbi().withHandle(h -> h.createQuery("SELECT coalesce(string_agg(tenant || '/' || name, ','),"
                + " '') FROM queues WHERE name = 'grpc-acme-only' OR paused").mapTo(String.class).one());
        assertThat(forbidden).isZero();
        assertThat(queues).as("acme's queue only, and nothing paused").isEqualTo("acme/grpc-acme-only");
        assertThat(tenantRow("acme")).as("a tenant may not raise its own weight").isEqualTo("none");

        StatusRuntimeException bad = failure(() -> jobs(ADMIN, "Not A Tenant").listJobs(ListJobsRequest
                .getDefaultInstance()));
        assertThat(bad.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(badRequestField(bad)).isEqualTo("tenant");
        // health needs no token, so no tenant either
        assertThat(HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance()).getStatus())
                .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }
}
