package io.forgeflow.domain.error;

/**
 * The request conflicts with the current state (resume a cancelled job, reuse an idempotency key, a unique key held by
 * a live job). 409.
 */
public final class ConflictException extends RuntimeException {
    /** The code of a submission whose unique key a live job holds. */
    public static final String UNIQUE_CONFLICT = "unique_conflict";
    /** The code of a submission whose idempotency key was used for another body. */
    public static final String IDEMPOTENCY_CONFLICT = "idempotency_conflict";
    /** The code of a change refused while the job has a running run. */
    public static final String JOB_RUNNING = "job_running";

    private final String field;
    private final String code;
    private final String jobId;

    public ConflictException(String message) {
        this(null, message);
    }

    public ConflictException(String field, String message) {
        this(field, message, null, null);
    }

    /**
     * @param code  a machine-readable reason, e.g. {@link #UNIQUE_CONFLICT}; null for none
     * @param jobId the job the request conflicts with; null for none
     */
    public ConflictException(String field, String message, String code, String jobId) {
        super(message);
        this.field = field;
        this.code = code;
        this.jobId = jobId;
    }

    /** The conflict of a submission with the live job {@code jobId} holding {@code uniqueKey} in {@code queue}. */
    public static ConflictException uniqueKeyHeld(String uniqueKey, String queue, String jobId) {
        return new ConflictException("unique_key", "unique_key '" + uniqueKey + "' is held by job " + jobId
                + " in queue " + queue + " while its run is pending or running: wait for it to end, or send "
                + "\"unique_on_conflict\": \"return_existing\" to get that job back", UNIQUE_CONFLICT, jobId);
    }

    /** A batch's idempotency key already made a batch from a different request. */
    public static ConflictException batchKeyUsed(String key, String batchId) {
        return new ConflictException("idempotency_key", "idempotency_key '" + key + "' was already used for a "
                + "different batch (" + batchId + "): send exactly the same body to get that batch back, or use a new key",
                IDEMPOTENCY_CONFLICT, null);
    }

    /** The conflict of a submission whose idempotency key {@code key} job {@code jobId} holds with another body. */
    public static ConflictException idempotencyKeyUsed(String key, String jobId) {
        return new ConflictException("idempotency_key", "idempotency_key '" + key + "' was already used for a "
                + "different job (" + jobId + "): send exactly the same body to get that job back, or use a new key",
                IDEMPOTENCY_CONFLICT, null);
    }

    /** The refusal to delete job {@code jobId} while one of its runs is running. */
    public static ConflictException jobRunning(String jobId) {
        return new ConflictException(null, "job " + jobId + " has a running run: wait for it to end, or delete with "
                + "?cancel_running=true to ask its worker to stop it", JOB_RUNNING, jobId);
    }

    public String field() {
        return field;
    }

    public String code() {
        return code;
    }

    public String jobId() {
        return jobId;
    }
}
