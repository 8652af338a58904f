package io.forgeflow.adapter.executor;

/**
 * How a node holds the processes of its shell jobs, chosen once at start ({@link JobIsolation#detect}), strongest
 * first. Shown per node in {@code GET /api/nodes} as {@link #label()}.
 */
public enum Containment {
    /**
     * Each attempt runs in a PID namespace of its own ({@code unshare --pid --fork --kill-child --mount-proc}) with a
     * fresh {@code /proc}: when the namespace's first process dies the kernel kills every process in it, whatever
     * process group or session it moved to, and the job sees no process outside it.
     */
    PID_NAMESPACE("pid-namespace"),
    /**
     * Each attempt leads a session and process group of its own ({@code setsid}); a process that leaves them
     * ({@code setsid}, {@code set -m}, GNU {@code timeout}) escapes when the worker dies.
     */
    PROCESS_GROUP("process-group"),
    /** No {@code setsid}: the shell shares the worker's session; only its descendants are killed, and only by the worker. */
    NONE("none");

    private final String label;

    Containment(String label) {
        this.label = label;
    }

    /** {@code pid-namespace}, {@code process-group} or {@code none}. */
    public String label() {
        return label;
    }
}
