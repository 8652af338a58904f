package io.forgeflow.cli;

import io.forgeflow.client.ForgeFlowApiException;
import net.sourceforge.argparse4j.inf.ArgumentParserException;

/**
 * The exit codes of the command line, for scripts: {@value #OK} success, {@value #USAGE} bad usage (unknown command
 * or option, a missing or malformed argument), {@value #NOT_FOUND} an unknown id (the API answered 404),
 * {@value #CONFLICT} a conflicting state or idempotency key (409), {@value #FAILURE} anything else (the server
 * unreachable, a refused token, a field that fails validation, a failure of the node itself).
 */
public final class ExitCodes {
    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;
    public static final int NOT_FOUND = 3;
    public static final int CONFLICT = 4;

    private ExitCodes() {
    }

    /** The exit code for a command that failed with {@code failure}. */
    public static int of(Throwable failure) {
        if (failure instanceof ArgumentParserException || failure instanceof UsageException) {
            return USAGE;
        }
        if (failure instanceof ReportedFailure reported) {
            return reported.exitCode();
        }
        if (failure instanceof ForgeFlowApiException api) {
            return api.isNotFound() ? NOT_FOUND : api.isConflict() ? CONFLICT : FAILURE;
        }
        return FAILURE;
    }
}
