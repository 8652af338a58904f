package io.forgeflow.cli;

/**
 * A command failed and has already said why on stderr (an action on several ids, some of which failed); carries the
 * exit code of its first failure.
 */
final class ReportedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    ReportedFailure(int exitCode) {
        super("failed with exit code " + exitCode, null, false, false);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
