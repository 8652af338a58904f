package io.forgeflow.embedded;

/**
 * Thrown by a {@link JobHandler} that knows no attempt will ever be worth making (the order was deleted, the customer
 * unsubscribed): {@code throw GiveUp.because("order 42 was deleted")}. The run is {@code cancelled} at once with
 * {@code "gave up: <reason>"} as its error, whatever attempts are left; its history shows the attempt {@code gave_up}.
 * Unlike {@link PermanentFailureException} (the run is {@code dead}, a failure to look at), a give-up is a decision
 * the handler made, not an error.
 */
public final class GiveUp extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private GiveUp(String reason) {
        super(reason, null, false, false);
    }

    /** A give-up with {@code reason} (null or blank: "no reason given"). */
    public static GiveUp because(String reason) {
        return new GiveUp(reason == null || reason.isBlank() ? "no reason given" : reason);
    }
}
