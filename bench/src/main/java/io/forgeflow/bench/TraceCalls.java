package io.forgeflow.bench;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.trace.TraceContext;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/**
 * TRACE: the tracing calls a node makes per run (a submission span, an attempt span made current around the work, the
 * run span at its end), without the database, at a steady rate: CPU per run of the calling thread inside those calls,
 * and of the whole JVM (the pacing's wake-ups, and the exporter's thread when FORGEFLOW_OTLP_ENDPOINT is set). Runs
 * carry the caller's context ({@code --w2-traceparent}) as the database would have stored it, or none.
 */
final class TraceCalls {
    private TraceCalls() {
    }

    /** Prints and returns {calling thread's CPU in the tracing calls, µs per run; the JVM's CPU, µs per run}. */
    static double[] measure(Tracing tracing, TraceContext caller, int runs, int perSecond, java.io.PrintStream out) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Run[] prepared = new Run[runs];
        Instant now = Instant.now();
        for (int i = 0; i < runs; i++) {
            // as stored: the run's own context is made by the database (forgeflow_trace_child), not by the node
            Run run = Run.pending(UUID.randomUUID().toString(), UUID.randomUUID().toString(), 3, 5, now, "noop",
                    Map.of(), 300, now);
            prepared[i] = caller == null ? run : run.withTrace(new RunTrace(caller.child(), caller, "default"));
        }
        long interval = 1_000_000_000L / perSecond;
        long process0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        long calls = 0; // the calling thread's CPU inside the tracing calls
        long clock = 0; // the same two readings of the thread's CPU clock around nothing, to take off
        for (int i = 0; i < runs; i++) {
            long wait = t0 + i * interval - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            long b0 = threads.getCurrentThreadCpuTime();
            long b1 = threads.getCurrentThreadCpuTime();
            clock += b1 - b0;
            long c0 = threads.getCurrentThreadCpuTime();
            Tracing.Span submit = tracing.submission("submit", caller);
            submit.attribute("forgeflow.job.id", prepared[i].jobId());
            submit.end(null);
            Run run = prepared[i];
            Tracing.Span attempt = tracing.attempt(run, "bench");
            try (Tracing.Scope inside = attempt.makeCurrent()) {
                attempt.attribute("forgeflow.attempt.outcome", "succeeded");
            }
            attempt.end(null);
            tracing.runEnded(run, RunStatus.SUCCEEDED, null);
            calls += threads.getCurrentThreadCpuTime() - c0;
        }
        long threadCpu = Math.max(0, calls - clock);
        if (tracing instanceof io.forgeflow.adapter.otel.OpenTelemetryTracing otel) {
            otel.flush(); // the export of what is buffered counts too
        }
        LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        long processCpu = os.getProcessCpuTime() - process0;
        double[] perRun = {threadCpu / 1e3 / runs, processCpu / 1e3 / runs};
        out.printf(Locale.ROOT, "TRACE %,d runs at %,d/s: calling thread inside the tracing calls %.2f us/run, "
                + "whole JVM (pacing included) %.2f us/run (%.1f s)%n", runs, perSecond, perRun[0], perRun[1], (System.nanoTime() - t0) / 1e9);
        return perRun;
    }
}
