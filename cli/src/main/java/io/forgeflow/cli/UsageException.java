package io.forgeflow.cli;

/** The command line is wrong in a way its parser cannot see (a --payload that is not a JSON object): exit code 2. */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
