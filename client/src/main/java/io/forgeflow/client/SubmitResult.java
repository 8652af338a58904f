package io.forgeflow.client;

/**
 * What {@code POST /api/jobs} answered: the job, and whether it was created now (201) or an earlier submission with
 * the same idempotency key and body was replayed (200). {@code debouncedInto}: the id of the run a debounce joined
 * the submission to (200; {@code job} is that run's job and nothing new was stored), else null.
 */
public record SubmitResult(Job job, boolean created, String debouncedInto) {
    /** An answer without a debounce. */
    public SubmitResult(Job job, boolean created) {
        this(job, created, null);
    }

    /** Whether a debounce joined the submission to an existing run ({@link #debouncedInto()}). */
    public boolean debounced() {
        return debouncedInto != null;
    }
}
