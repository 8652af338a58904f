package io.forgeflow.application.trace;

import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.trace.TraceContext;

/**
 * Spans of ForgeFlow's work: a submission ({@code forgeflow.submit}, {@code forgeflow.trigger}), each run
 * ({@code forgeflow.run}, from its creation to its end) and each attempt ({@code forgeflow.attempt}). {@link #NONE}
 * records nothing and only hands the caller's context on, so a job submitted with a {@code traceparent} keeps its
 * trace id even when no exporter is configured. Implementations must be cheap and never throw.
 */
public interface Tracing {
    /** No spans: contexts are passed through unchanged. */
    Tracing NONE = new Tracing() {
    };

    /** {@code messaging.system}. */
    String SYSTEM = "forgeflow";

    /**
     * Starts the span of a submission under {@code incoming} (the caller's context, null for none). Its
     * {@link Span#context()} is what the job stores: the span's, or {@code incoming} when not tracing.
     */
    default Span submission(String operation, TraceContext incoming) {
        return Span.of(incoming);
    }

    /**
     * Starts the span of an attempt of a claimed run, as a child of the run's span. Its {@link Span#context()} is
     * what the work receives ({@code traceparent} header, {@code TRACEPARENT} variable).
     */
    default Span attempt(Run run, String workerId) {
        return Span.of(run.trace() == null ? null : run.trace().context());
    }

    /**
     * The run ended with {@code status}: records its {@code forgeflow.run} span, from its creation to now, under the
     * ids stored with it. Called once per end, by whatever ended it and only after that end was stored: a worker's
     * written acknowledgement, the lease rescuer, an operator's or a job control's cancel. A requeue gives the run a
     * new context (its next life's span), so a run ended again records a new span.
     */
    default void runEnded(Run run, RunStatus status, String error) {
    }

    /**
     * {@code task}, to be run on another thread inside the span current on the calling thread (an in-process
     * handler's thread runs inside its attempt's span).
     */
    default Runnable propagate(Runnable task) {
        return task;
    }

    /** One span being recorded. */
    interface Span {
        /** The context to hand on (null: none). */
        TraceContext context();

        default void attribute(String key, String value) {
        }

        default void attribute(String key, long value) {
        }

        /** Makes the span current on this thread until the scope closes (in-process handlers run inside it). */
        default Scope makeCurrent() {
            return () -> {
            };
        }

        /** Ends the span; {@code error} (may be null) marks it failed. */
        default void end(String error) {
        }

        static Span of(TraceContext context) {
            return () -> context;
        }
    }

    /** A span made current; closing restores the previous one. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
