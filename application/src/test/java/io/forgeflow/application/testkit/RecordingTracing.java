package io.forgeflow.application.testkit;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link Tracing} that remembers each run span it was asked to record (and records nothing else). */
public final class RecordingTracing implements Tracing {
    /** One {@link Tracing#runEnded} call. */
    public record RunSpan(String runId, RunStatus status, String error) {
    }

    public final List<RunSpan> runSpans = new CopyOnWriteArrayList<>();

    @Override
    public void runEnded(Run run, RunStatus status, String error) {
        runSpans.add(new RunSpan(run.id(), status, error));
    }
}
