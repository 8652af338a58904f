package io.forgeflow.domain.trace;

/**
 * What tracing needs of a run besides the run itself.
 *
 * @param context the context of the run's {@code forgeflow.run} span; its attempts' spans are its children. Null when
 *                the run is not traced (submitted without trace context while tracing was off)
 * @param origin  the submission's context: the run span's parent when in the same trace, its link otherwise (a cron
 *                tick starts a new trace); null when none
 * @param queue   the run's queue (the messaging destination); null when not read
 */
public record RunTrace(TraceContext context, TraceContext origin, String queue) {
    /** A run to be inserted under {@code origin} (a trigger's context): its own context is made when stored. */
    public static RunTrace under(TraceContext origin) {
        return origin == null ? null : new RunTrace(null, origin, null);
    }
}
