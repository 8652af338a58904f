package io.forgeflow.domain.port;

import io.forgeflow.domain.run.Run;

import java.util.Objects;

/**
 * A run as a list shows it: every field, but only the last {@value #OUTPUT_TAIL_CHARS} characters of its output (at
 * most 16 KiB in UTF-8) and no payload, so a page of 500 runs fits in a few MiB whatever the runs hold. The run's own
 * route returns it whole.
 *
 * @param outputTruncated whether {@code run.output()} is the tail of a longer output
 */
public record ListedRun(Run run, boolean outputTruncated) {
    /** The most output characters a list item carries. */
    public static final int OUTPUT_TAIL_CHARS = 4096;

    public ListedRun {
        Objects.requireNonNull(run, "run");
    }
}
