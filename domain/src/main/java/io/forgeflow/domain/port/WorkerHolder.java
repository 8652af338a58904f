package io.forgeflow.domain.port;

import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The identity that fences a worker process's writes: its label ({@code FORGEFLOW_WORKER_ID}, for people; two
 * processes may share one) and an incarnation made at random when the process (or, after its lease was ended, its next
 * life) starts: {@code node-1#9f2c...} (32 hex digits). {@link RunQueue} calls take the holder; runs keep the label for
 * display and the holder for fences, so two processes with one label never release, extend or acknowledge each
 * other's runs.
 */
public final class WorkerHolder {
    private static final Pattern INCARNATION = Pattern.compile("#[0-9a-f]{32}$");

    private WorkerHolder() {
    }

    /** A new holder for {@code label}: the label and a fresh random incarnation. */
    public static String next(String label) {
        Objects.requireNonNull(label, "label");
        return label + "#" + UUID.randomUUID().toString().replace("-", "");
    }

    /** The label of {@code holder}: the holder without its incarnation (a holder without one is its own label). */
    public static String labelOf(String holder) {
        Objects.requireNonNull(holder, "holder");
        return INCARNATION.matcher(holder).replaceFirst("");
    }
}
