package io.forgeflow.domain.run;

/** A use of the run lifecycle that its transition table forbids. */
public final class IllegalRunTransitionException extends RuntimeException {
    private final RunStatus from;
    private final RunStatus to;

    public IllegalRunTransitionException(String runId, RunStatus from, RunStatus to) {
        super("run " + runId + " is " + from.wireName() + " and cannot become " + to.wireName());
        this.from = from;
        this.to = to;
    }

    public RunStatus from() {
        return from;
    }

    public RunStatus to() {
        return to;
    }
}
