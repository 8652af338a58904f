package io.forgeflow.application.worker;

import io.forgeflow.domain.backoff.FailureDecision;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Remembers everything a worker reported. Thread-safe. */
final class RecordingListener implements WorkerListener {
    record Finished(String runId, AttemptOutcome outcome, RunStatus next) {
    }

    record FenceLost(RunFence fence, String what) {
    }

    final List<List<Run>> claims = new CopyOnWriteArrayList<>();
    final List<Finished> finished = new CopyOnWriteArrayList<>();
    final List<FenceLost> fencesLost = new CopyOnWriteArrayList<>();
    final List<Integer> busySlots = new CopyOnWriteArrayList<>();
    final List<FailureDecision> decisions = new CopyOnWriteArrayList<>();

    @Override
    public void failureDecided(Run run, FailureDecision decision) {
        decisions.add(decision);
    }

    @Override
    public void claimed(List<Run> runs) {
        claims.add(List.copyOf(runs));
    }

    @Override
    public void finished(Run run, AttemptOutcome outcome, RunStatus next, Duration took) {
        finished.add(new Finished(run.id(), outcome, next));
    }

    @Override
    public void fenceLost(RunFence fence, String what) {
        fencesLost.add(new FenceLost(fence, what));
    }

    @Override
    public void busySlots(int busy) {
        busySlots.add(busy);
    }
}
