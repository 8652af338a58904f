package io.forgeflow.domain.job;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One event of a job with {@link Notify}, as the store wrote it to its outbox in the event's transaction (issue 45):
 * the leader's {@code NoticeDispatcher} turns it into a one-off {@code http} job of the queue {@value Notify#QUEUE}.
 *
 * @param id      the outbox row's id: the idempotency key of its http job is {@code notice:<id>}
 * @param event   {@link Notify#DEAD}, {@link Notify#PAUSED} or {@link Notify#RECOVERED}
 * @param url     the job's notify URL when the event happened
 * @param runId   the run that died or succeeded (a pause by pause_after_failures: the run that died last); null for
 *                an operator's pause
 * @param attempt that run's attempt; null without a run
 * @param error   the dead run's error (at most {@value #MAX_ERROR_LENGTH} characters); null otherwise
 * @param note    a pause's note; null otherwise
 * @param at      when the event happened
 */
public record Notice(long id, String event, String jobId, String jobName, String url, String runId, Integer attempt,
                     String error, String note, Instant at) {
    /** The most characters of a run's error a notice carries. */
    public static final int MAX_ERROR_LENGTH = 2000;
    /** The header that carries the signature: {@code sha256=<hex HMAC-SHA256 of the body's bytes>}. */
    public static final String SIGNATURE_HEADER = "X-ForgeFlow-Signature";

    public Notice {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(at, "at");
        if (!Notify.EVENTS.contains(event)) {
            throw new IllegalArgumentException("not a notice event: " + event);
        }
    }

    /** The idempotency key of the notice's http job: one job per notice, however often it is dispatched. */
    public String idempotencyKey() {
        return "notice:" + id;
    }

    /**
     * The body POSTed to the URL, as compact JSON in this order: {@code event, job_id, job_name, run_id, attempt,
     * error, note, at} (absent values are null; {@code at} is RFC 3339 in UTC). The same notice always gives the same
     * text, so a dispatch repeated after a crash is the same request.
     */
    public String body() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("event", event);
        fields.put("job_id", jobId);
        fields.put("job_name", jobName);
        fields.put("run_id", runId);
        fields.put("attempt", attempt);
        fields.put("error", error);
        fields.put("note", note);
        fields.put("at", at.toString());
        StringBuilder json = new StringBuilder("{");
        fields.forEach((name, value) -> {
            if (json.length() > 1) {
                json.append(',');
            }
            quote(json, name).append(':');
            if (value == null) {
                json.append("null");
            } else if (value instanceof Integer) {
                json.append(value);
            } else {
                quote(json, value.toString());
            }
        });
        return json.append('}').toString();
    }

    /** {@code sha256=} and the hex HMAC-SHA256 (RFC 2104) of {@code body}'s UTF-8 bytes under {@code secret}. */
    public static String signature(byte[] secret, String body) {
        return "sha256=" + HexFormat.of().formatHex(hmacSha256(secret, body.getBytes(StandardCharsets.UTF_8)));
    }

    /** HMAC-SHA256 (RFC 2104) with the JDK's SHA-256: block size 64 bytes. */
    static byte[] hmacSha256(byte[] secret, byte[] message) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        byte[] key = secret.length > 64 ? sha.digest(secret) : secret;
        byte[] inner = new byte[64];
        byte[] outer = new byte[64];
        for (int i = 0; i < 64; i++) {
            byte k = i < key.length ? key[i] : 0;
            inner[i] = (byte) (k ^ 0x36);
            outer[i] = (byte) (k ^ 0x5c);
        }
        sha.update(inner);
        byte[] innerHash = sha.digest(message);
        sha.update(outer);
        return sha.digest(innerHash);
    }

    private static StringBuilder quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }
}
