package io.forgeflow.application.notice;

import io.forgeflow.application.job.SubmitJob;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.Notice;
import io.forgeflow.domain.job.Notify;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.NoticeOutbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The leader's notices (issue 45), run with each scheduler pass: turns the notices of the outbox into one-off
 * {@code http} jobs of the queue {@value Notify#QUEUE} through {@link SubmitJob} (the one writer of jobs), then
 * removes them. Exactly once: each job's idempotency key is {@code notice:<outbox id>} and its body is made from the
 * notice alone, so a notice handed out again after a crash between the submission and the removal finds its job and
 * submits nothing. Retries, dead letters and the dashboard are the http job's.
 *
 * <p>With a secret ({@code FORGEFLOW_NOTIFY_SECRET}) the job carries {@value Notice#SIGNATURE_HEADER}: {@code sha256=}
 * and the hex HMAC-SHA256 of the exact body bytes. The body is sent as a JSON <em>string</em> with
 * {@code Content-Type: application/json}, which the http executor sends byte for byte, so the bytes signed here are
 * the bytes the receiver gets. The secret stays in this process: the job holds only the signature.
 *
 * <p>A notice whose job the submission refuses (its URL is refused by the http executor's guard, say) can never be
 * delivered: it is logged and removed, so it does not hold back the notices after it. Nothing while not leading.
 */
public final class NoticeDispatcher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(NoticeDispatcher.class);
    /** Notices taken per transaction. */
    static final int BATCH = 100;
    /** Attempts of a notice's http job: the first and 7 retries (backoff 5 s doubling up to 10 min, about 20 min in all). */
    public static final int MAX_ATTEMPTS = 8;
    static final int TIMEOUT_SECONDS = 30;
    static final int RETRY_BASE_SECONDS = 5;
    static final int RETRY_MAX_SECONDS = 600;

    private final NoticeOutbox outbox;
    private final SubmitJob submit;
    private final LeaderElection election;
    private final byte[] secret;

    /** @param secret the signing key ({@code FORGEFLOW_NOTIFY_SECRET}'s UTF-8 bytes); null or empty: unsigned */
    public NoticeDispatcher(NoticeOutbox outbox, SubmitJob submit, LeaderElection election, byte[] secret) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.submit = Objects.requireNonNull(submit, "submit").forTheSystem(); // notice:<id> keys are its own
        this.election = Objects.requireNonNull(election, "election");
        this.secret = secret == null || secret.length == 0 ? null : secret.clone();
    }

    @Override
    public void run() {
        runOnce();
    }

    /** One pass: every pending notice while leading, a batch per transaction. Returns how many were dispatched. */
    public int runOnce() {
        int dispatched = 0;
        int drained;
        do {
            if (!election.isLeader()) {
                return dispatched;
            }
            drained = outbox.drain(BATCH, this::send);
            dispatched += drained;
        } while (drained == BATCH);
        return dispatched;
    }

    /** Submits the notice's http job; true once it exists (or can never exist). */
    private boolean send(Notice notice) {
        try {
            submit.submit(draft(notice, secret));
            return true;
        } catch (ConflictException e) {
            if (!ConflictException.IDEMPOTENCY_CONFLICT.equals(e.code())) {
                throw e;
            }
            // its job exists under the key, made with other settings (a new secret): it was submitted once
            return true;
        } catch (ValidationException e) {
            LOG.warn("notice {} ({} of job {}) cannot be sent and is dropped: {}", notice.id(), notice.event(),
                    notice.jobId(), e.getMessage());
            return true;
        }
    }

    /** The http job of a notice: POST of {@link Notice#body()} to its URL, signed when there is a secret. */
    static JobDraft draft(Notice notice, byte[] secret) {
        String body = notice.body();
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("X-ForgeFlow-Event", notice.event());
        headers.put("X-ForgeFlow-Notice-Id", Long.toString(notice.id()));
        if (secret != null) {
            headers.put(Notice.SIGNATURE_HEADER, Notice.signature(secret, body));
        }
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("url", notice.url());
        payload.put("method", "POST");
        payload.put("headers", headers);
        payload.put("body", body);
        String name = "notice " + notice.event() + ": " + (notice.jobName() == null ? notice.jobId() : notice.jobName());
        if (name.length() > JobDraft.MAX_NAME_LENGTH) {
            name = name.substring(0, JobDraft.MAX_NAME_LENGTH - 1) + "…";
        }
        return new JobDraft(name, "http", payload, null, null, null, null, MAX_ATTEMPTS, TIMEOUT_SECONDS, null,
                notice.idempotencyKey(), Notify.QUEUE, null, null, null, null, null, RETRY_BASE_SECONDS,
                RETRY_MAX_SECONDS, Map.of("notice.event", notice.event(), "notice.job", notice.jobId()), null, null,
                null, null, null, null);
    }
}
