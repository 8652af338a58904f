package io.forgeflow.application.notice;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.Notice;
import io.forgeflow.domain.job.Notify;
import io.forgeflow.domain.port.JobRepository.RunCancellation;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NoticeDispatcherTest {
    static final byte[] SECRET = "s3cret".getBytes(StandardCharsets.UTF_8);
    final Scenario s = new Scenario();
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final NoticeDispatcher dispatcher = new NoticeDispatcher(s.store.notices(), s.submitJob(), election, SECRET);

    Job watched() {
        Job job = s.submit(aDraft().named("nightly").withNotify(new Notify("https://hooks.example.com/ff", null)));
        assertThat(s.store.jobs().pause(job.id(), job.status(), "maintenance", "alice")).isPresent();
        return job;
    }

    List<Job> noticeJobs() {
        return s.store.allJobs().stream().filter(j -> Notify.QUEUE.equals(j.spec().queue())).toList();
    }

    @Test
    void aNoticeBecomesOneSignedHttpJobOfTheNoticesQueueAndLeavesTheOutbox() throws Exception {
        Job job = watched();
        Notice notice = s.store.notices().pending(10).get(0);

        assertThat(dispatcher.runOnce()).isEqualTo(1);

        assertThat(s.store.notices().pending(10)).isEmpty();
        Job sent = noticeJobs().get(0);
        assertThat(sent.spec().executor()).isEqualTo("http");
        assertThat(sent.spec().idempotencyKey()).isEqualTo("notice:" + notice.id());
        assertThat(sent.spec().maxAttempts()).isEqualTo(NoticeDispatcher.MAX_ATTEMPTS);
        assertThat(sent.spec().notices()).as("a notice sends no notices").isNull();
        assertThat(sent.spec().labels()).containsEntry("notice.job", job.id()).containsEntry("notice.event", "paused");
        Map<String, Object> payload = sent.spec().payload();
        assertThat(payload).containsEntry("url", "https://hooks.example.com/ff").containsEntry("method", "POST");
        String body = (String) payload.get("body");
        assertThat(body).startsWith("{\"event\":\"paused\",\"job_id\":\"" + job.id() + "\",\"job_name\":\"nightly\"")
                .contains("\"note\":\"maintenance\"");
        @SuppressWarnings("unchecked")
        Map<String, Object> headers = (Map<String, Object>) payload.get("headers");
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
        assertThat(headers).containsEntry("Content-Type", "application/json")
                .containsEntry("X-ForgeFlow-Signature",
                        "sha256=" + HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8))))
                .doesNotContainValue("s3cret");
        Run run = s.onlyRunOf(sent.id());
        assertThat(run.executor()).isEqualTo("http");
    }

    @Test
    void aNoticeHandedOutAgainAfterACrashFindsItsJobAndSubmitsNothing() {
        watched();
        Notice notice = s.store.notices().pending(10).get(0);
        // a dispatcher that submitted, then died before its removal committed
        s.submitJob().forTheSystem().submit(NoticeDispatcher.draft(notice, SECRET));

        assertThat(dispatcher.runOnce()).isEqualTo(1);

        assertThat(noticeJobs()).hasSize(1);
        assertThat(s.store.notices().pending(10)).isEmpty();
    }

    @Test
    void aNoticeSignedWithAnOldSecretCountsAsSent() {
        watched();
        Notice notice = s.store.notices().pending(10).get(0);
        s.submitJob().forTheSystem().submit(NoticeDispatcher.draft(notice, "old".getBytes(StandardCharsets.UTF_8)));

        assertThat(dispatcher.runOnce()).isEqualTo(1);

        assertThat(noticeJobs()).hasSize(1);
    }

    @Test
    void withoutASecretTheNoticeIsUnsigned() {
        watched();
        new NoticeDispatcher(s.store.notices(), s.submitJob(), election, null).runOnce();

        @SuppressWarnings("unchecked")
        Map<String, Object> headers = (Map<String, Object>) noticeJobs().get(0).spec().payload().get("headers");
        assertThat(headers).doesNotContainKey(Notice.SIGNATURE_HEADER);
    }

    @Test
    void aStandbyLeavesTheOutboxAlone() {
        watched();
        election.setLeader(false);

        assertThat(dispatcher.runOnce()).isZero();

        assertThat(s.store.notices().pending(10)).hasSize(1);
        assertThat(noticeJobs()).isEmpty();
    }

    @Test
    void aClusterDefaultNotifiesOrdinaryJobsButNeverTheNotices() {
        Notify fallback = Notify.parse("https://hooks.example.com/all", "dead");
        SubmitJob submit = s.submitJob().withNotifyDefault(fallback);
        Job plain = submit.submit(aDraft().build()).job();
        Job own = submit.submit(aDraft().withNotify(new Notify("https://own.example.com/", List.of("paused"))).build())
                .job();
        assertThat(plain.spec().notices()).isEqualTo(fallback);
        assertThat(own.spec().notices().url()).isEqualTo("https://own.example.com/");

        assertThat(s.store.jobs().changeStatus(own.id(), own.status(), JobStatus.PAUSED, null,
                RunCancellation.PENDING, null)).isPresent();
        new NoticeDispatcher(s.store.notices(), submit, election, null).runOnce();

        assertThat(noticeJobs()).singleElement().satisfies(j -> assertThat(j.spec().notices()).isNull());
    }

    @Test
    void aNoticeWhoseJobIsRefusedIsDroppedRatherThanRetriedForever() {
        watched();
        SubmitJob withoutHttp = new SubmitJob(s.store.jobs(),
                new io.forgeflow.application.executor.ExecutorRegistry(List.of(s.shell), null), s.cron, s.signal,
                s.clock);

        assertThat(new NoticeDispatcher(s.store.notices(), withoutHttp, election, null).runOnce()).isEqualTo(1);

        assertThat(s.store.notices().pending(10)).isEmpty();
        assertThat(noticeJobs()).isEmpty();
    }

    @Test
    void aNotifyWithAnUnknownEventIsRefusedNamingNotifyOn() {
        assertThatThrownBy(() -> s.submitJob().submit(aDraft().withNotify(
                new Notify("https://hooks.example.com/ff", List.of("failed"))).build()))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo("notify.on"));
    }

    @Test
    void aNotifyNeedsTheHttpExecutor() {
        SubmitJob withoutHttp = new SubmitJob(s.store.jobs(),
                new io.forgeflow.application.executor.ExecutorRegistry(List.of(s.shell), null), s.cron, s.signal,
                s.clock);

        assertThatThrownBy(() -> withoutHttp.submit(aDraft().withNotify(new Notify("https://hooks.example.com/ff",
                null)).build()))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo("notify.url"));
    }

    @Test
    void morePendingNoticesThanABatchAreAllDispatchedInOnePass() {
        for (int i = 0; i < NoticeDispatcher.BATCH + 1; i++) {
            Job job = s.submit(aDraft().named("job-" + i).withNotify(new Notify("https://hooks.example.com/ff", null)));
            assertThat(s.store.jobs().pause(job.id(), job.status(), null, null)).isPresent();
        }

        assertThat(dispatcher.runOnce()).isEqualTo(NoticeDispatcher.BATCH + 1);

        assertThat(s.store.notices().pending(1000)).isEmpty();
        assertThat(noticeJobs()).hasSize(NoticeDispatcher.BATCH + 1);
    }

    @Test
    void aLongJobNameIsCutToTheLongestNameAJobMayHave() {
        Job job = s.submit(aDraft().named("n".repeat(200)).withNotify(new Notify("https://hooks.example.com/ff", null)));
        assertThat(s.store.jobs().pause(job.id(), job.status(), null, null)).isPresent();

        dispatcher.runOnce();

        assertThat(noticeJobs().get(0).spec().name()).hasSize(200).startsWith("notice paused: nnn").endsWith("n…");
        Job fits = s.submit(aDraft().named("m".repeat(185)).withNotify(new Notify("https://hooks.example.com/ff",
                null)));
        assertThat(s.store.jobs().pause(fits.id(), fits.status(), null, null)).isPresent();
        dispatcher.runOnce();
        assertThat(noticeJobs()).anySatisfy(j -> assertThat(j.spec().name()).isEqualTo("notice paused: "
                + "m".repeat(185)));
    }

    @Test
    void anEmptySecretSignsNothing() {
        watched();
        new NoticeDispatcher(s.store.notices(), s.submitJob(), election, new byte[0]).runOnce();

        @SuppressWarnings("unchecked")
        Map<String, Object> headers = (Map<String, Object>) noticeJobs().get(0).spec().payload().get("headers");
        assertThat(headers).doesNotContainKey(Notice.SIGNATURE_HEADER).containsEntry("X-ForgeFlow-Event", "paused");
    }
}
