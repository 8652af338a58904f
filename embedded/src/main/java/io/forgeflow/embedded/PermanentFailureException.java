package io.forgeflow.embedded;

/**
 * Thrown by a {@link JobHandler} when no other attempt could succeed (the order does not exist, the input is
 * invalid): the run goes to {@code dead} at once, with the message as its error, whatever attempts the job has left.
 * Any other exception fails the attempt and leaves the retries to the job's policy.
 */
public class PermanentFailureException extends RuntimeException {

    public PermanentFailureException(String reason) {
        super(reason);
    }

    public PermanentFailureException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
