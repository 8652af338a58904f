package io.forgeflow.domain.backoff;

/**
 * A job's own retry policy ({@code retry: {"base_seconds": n, "max_seconds": n}}), stored with the job and copied to its
 * runs. Either part may be null: that part is the deciding node's default (the server's base
 * {@code FORGEFLOW_RETRY_BASE}, 5 s, and cap 15 min). A given value wins over a default: base 1 h on a node whose cap is
 * 15 min backs off with base 1 h and cap 1 h; max 2 s on a node whose base is 5 s backs off with base 2 s and cap 2 s.
 *
 * @param baseSeconds the backoff base in seconds (1-86400), or null for the node's
 * @param maxSeconds  the backoff cap in seconds (1-86400, at least the base when both are given), or null for the node's
 */
public record RetryOverride(Integer baseSeconds, Integer maxSeconds) {
    public static final int MAX_SECONDS = 86_400;

    public RetryOverride {
        check("base_seconds", baseSeconds);
        check("max_seconds", maxSeconds);
        if (baseSeconds != null && maxSeconds != null && baseSeconds > maxSeconds) {
            throw new IllegalArgumentException("retry base_seconds (" + baseSeconds + ") must be at most max_seconds ("
                    + maxSeconds + ")");
        }
    }

    /** The override, or null when neither part is given (the job follows the node's defaults). */
    public static RetryOverride of(Integer baseSeconds, Integer maxSeconds) {
        return baseSeconds == null && maxSeconds == null ? null : new RetryOverride(baseSeconds, maxSeconds);
    }

    /** The policy that decides for a run with {@code override} (null: none) on a node whose default is {@code node}. */
    public static RetryPolicy effective(RetryOverride override, RetryPolicy node) {
        return override == null ? node : override.over(node);
    }

    /** This job's policy, with the parts it leaves out taken from {@code node}. */
    public RetryPolicy over(RetryPolicy node) {
        java.time.Duration base = baseSeconds == null ? null : java.time.Duration.ofSeconds(baseSeconds);
        java.time.Duration cap = maxSeconds == null ? null : java.time.Duration.ofSeconds(maxSeconds);
        if (base == null) {
            base = java.util.Collections.min(java.util.List.of(node.base(), cap));
        }
        if (cap == null) {
            cap = java.util.Collections.max(java.util.List.of(node.cap(), base));
        }
        return new RetryPolicy(base, cap);
    }

    private static void check(String field, Integer value) {
        if (value != null && (value < 1 || value > MAX_SECONDS)) {
            throw new IllegalArgumentException("retry " + field + " must be between 1 and " + MAX_SECONDS + ", was "
                    + value);
        }
    }
}
