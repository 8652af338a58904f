package io.forgeflow.embedded;

/**
 * The application's own code for runs of executor {@code java} whose payload names this handler
 * ({@code {"handler": "send-receipt", "args": {...}}}). Called on a thread of the embedded worker, one attempt at a
 * time per call, possibly on many threads at once: an instance registered with
 * {@link ForgeFlowWorker.Builder#handler(String, JobHandler)} must be thread-safe; a class registered with
 * {@link ForgeFlowWorker.Builder#handler(String, Class)} is instantiated for every attempt.
 *
 * <p>Returning normally is success. Throwing fails the attempt, retried with backoff while the job's
 * {@code max_attempts} allow, then dead-lettered with the exception's message as the run's error.
 * {@link PermanentFailureException} (or {@link JobContext#failPermanently}) sends the run to {@code dead} at once.
 * {@link Snooze} ({@code throw Snooze.of(Duration.ofMinutes(5))}) sends it back to {@code pending} for that long
 * without spending an attempt; {@link GiveUp} ({@code throw GiveUp.because("order deleted")}) cancels it with its
 * reason, no further attempt.
 * When the attempt is cancelled or times out, the thread is interrupted: end soon after (blocking calls throw
 * {@link InterruptedException}; long loops check {@link JobContext#cancellation()}).
 */
@FunctionalInterface
public interface JobHandler {

    /** Runs one attempt. */
    void handle(JobContext ctx) throws Exception;
}
