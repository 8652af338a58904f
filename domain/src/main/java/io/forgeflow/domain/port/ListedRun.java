package io.forgeflow.domain.port;

import io.forgeflow.domain.run.Run;

import java.util.Objects;

/**
 * A run as a list shows it: every field, but only the last {@value #OUTPUT_TAIL_CHARS} characters of its output (at
 * most 16 KiB in UTF-8) and no payload; a page is also held to a {@link ListBudget}. The run's own route returns it
 * whole.
 *
 * @param outputTruncated whether {@code run.output()} is the tail of a longer output
 */
public record ListedRun(Run run, boolean outputTruncated) {
    /** The most output characters a list item carries. */
    public static final int OUTPUT_TAIL_CHARS = 4096;
    /** What a run item's field names and fixed-size values count for in a {@link ListBudget}, besides its texts. */
    public static final int ITEM_OVERHEAD_BYTES = 512;

    public ListedRun {
        Objects.requireNonNull(run, "run");
    }
}
