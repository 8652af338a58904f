package io.forgeflow.application.workflow;

import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.Workflows;

import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * The leader's workflow chores, run with each scheduler pass: completes the batches whose jobs have all ended (their
 * on_complete job becomes due) and decides the children the store left for later. Nothing while not leading.
 */
public final class WorkflowSweeper implements Runnable {
    static final int BATCH = 100;
    private final Workflows workflows;
    private final LeaderElection election;
    private final IntConsumer batchesCompleted;

    /** @param batchesCompleted told how many batches each pass completed (a counter) */
    public WorkflowSweeper(Workflows workflows, LeaderElection election, IntConsumer batchesCompleted) {
        this.workflows = Objects.requireNonNull(workflows, "workflows");
        this.election = Objects.requireNonNull(election, "election");
        this.batchesCompleted = Objects.requireNonNull(batchesCompleted, "batchesCompleted");
    }

    @Override
    public void run() {
        runOnce();
    }

    /** One pass; returns the batches completed. */
    public int runOnce() {
        if (!election.isLeader()) {
            return 0;
        }
        int completed = 0;
        List<String> done;
        do {
            done = workflows.completeBatches(BATCH);
            completed += done.size();
        } while (done.size() == BATCH && election.isLeader());
        while (election.isLeader() && workflows.recheckChildren(BATCH) == BATCH) {
            // more children were left than one round decides
        }
        if (completed > 0) {
            batchesCompleted.accept(completed);
        }
        return completed;
    }
}
