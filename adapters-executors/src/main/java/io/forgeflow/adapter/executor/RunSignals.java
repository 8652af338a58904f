package io.forgeflow.adapter.executor;

import io.forgeflow.domain.execution.ExecutionResult;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a shell or http job tells its worker to snooze (come back later without spending an attempt) or to give up
 * (cancelled with a reason, no further attempt), docs/API.md "Flow control":
 * <ul>
 *   <li>shell: exit code {@value #SNOOZE_EXIT} (sysexits' EX_TEMPFAIL) with a line {@code FORGEFLOW_SNOOZE_SECONDS=n}
 *       in its output (the last such line counts; print it last, as only the output's tail is kept), n from 0 to
 *       2592000 (30 days); exit code {@value #SNOOZE_EXIT} without that line is an ordinary failure, so a script
 *       that already exits 75 is not snoozed for ever. Exit code {@value #GIVE_UP_EXIT} gives up, with the last line
 *       {@code FORGEFLOW_GIVE_UP_REASON=text} as its reason when it printed one. A code listed in
 *       {@code payload.permanent_exit_codes} keeps that meaning.</li>
 *   <li>http: a response header {@value #SNOOZE_HEADER}{@code : n} snoozes n seconds (0 to 2592000), and
 *       {@value #GIVE_UP_HEADER}{@code : reason} gives up, whatever the status (give-up first when both).</li>
 * </ul>
 * A malformed snooze (not a whole number, or out of range) fails the attempt with a message naming the line or header.
 */
public final class RunSignals {
    /** The shell exit code that snoozes (with {@code FORGEFLOW_SNOOZE_SECONDS=n} printed). */
    public static final int SNOOZE_EXIT = 75;
    /** The shell exit code that gives up. */
    public static final int GIVE_UP_EXIT = 76;
    /** The http response header that snoozes: its value is whole seconds. */
    public static final String SNOOZE_HEADER = "X-ForgeFlow-Snooze-Seconds";
    /** The http response header that gives up: its value is the reason. */
    public static final String GIVE_UP_HEADER = "X-ForgeFlow-Give-Up";
    /** The longest reason kept (characters). */
    static final int MAX_REASON = 500;

    private static final Pattern SNOOZE_LINE = Pattern.compile("(?m)^FORGEFLOW_SNOOZE_SECONDS=([^\\r\\n]*?)\\s*$");
    private static final Pattern REASON_LINE = Pattern.compile("(?m)^FORGEFLOW_GIVE_UP_REASON=([^\\r\\n]*?)\\s*$");
    private static final Pattern WHOLE = Pattern.compile("[0-9]{1,10}");

    private RunSignals() {
    }

    /** The result of a shell that exited with {@code exitCode} (not 0, not listed permanent), or null: no signal. */
    public static ExecutionResult fromShellExit(int exitCode, String output) {
        if (exitCode == GIVE_UP_EXIT) {
            String reason = lastValue(REASON_LINE, output);
            return ExecutionResult.gaveUp(output, reason == null || reason.isBlank()
                    ? "exit code " + GIVE_UP_EXIT : clip(reason));
        }
        if (exitCode != SNOOZE_EXIT) {
            return null;
        }
        String seconds = lastValue(SNOOZE_LINE, output);
        if (seconds == null) {
            return ExecutionResult.failed(output, "exit code 75 (to snooze, also print FORGEFLOW_SNOOZE_SECONDS=n, "
                    + "n from 0 to 2592000)");
        }
        Duration snooze = seconds(seconds);
        return snooze == null
                ? ExecutionResult.failed(output, "exit code 75 with FORGEFLOW_SNOOZE_SECONDS=" + clip(seconds)
                        + ": it must be whole seconds from 0 to 2592000, e.g. FORGEFLOW_SNOOZE_SECONDS=300")
                : ExecutionResult.snoozed(output, snooze);
    }

    /** The result an http response's headers ask for (either value may be null), or null: no signal. */
    public static ExecutionResult fromHttpHeaders(String snoozeHeader, String giveUpHeader, String output) {
        if (giveUpHeader != null) {
            return ExecutionResult.gaveUp(output, clip(giveUpHeader.strip()));
        }
        if (snoozeHeader == null) {
            return null;
        }
        Duration snooze = seconds(snoozeHeader.strip());
        return snooze == null
                ? ExecutionResult.failed(output, SNOOZE_HEADER + ": " + clip(snoozeHeader) + " must be whole seconds "
                        + "from 0 to 2592000, e.g. " + SNOOZE_HEADER + ": 300")
                : ExecutionResult.snoozed(output, snooze);
    }

    private static Duration seconds(String text) {
        if (!WHOLE.matcher(text).matches()) {
            return null;
        }
        long seconds = Long.parseLong(text);
        return seconds > ExecutionResult.MAX_SNOOZE.toSeconds() ? null : Duration.ofSeconds(seconds);
    }

    private static String lastValue(Pattern line, String output) {
        if (output == null) {
            return null;
        }
        Matcher m = line.matcher(output);
        String last = null;
        while (m.find()) {
            last = m.group(1);
        }
        return last;
    }

    private static String clip(String text) {
        return text.length() > MAX_REASON ? text.substring(0, MAX_REASON) + "..." : text;
    }
}
