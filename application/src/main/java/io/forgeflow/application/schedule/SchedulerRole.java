package io.forgeflow.application.schedule;

import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.support.PeriodicTask;
import io.forgeflow.domain.port.LeaderElection;

import java.time.Duration;
import java.util.Objects;

/**
 * The scheduler role, as a node ({@code FORGEFLOW_ROLES=scheduler}) or an embedded worker that asks for it runs it: one
 * loop that, while this process leads (the ticker campaigns), turns due schedules into runs and gives the runs of
 * vanished workers back to the queue, every {@code tick} or sooner when a cron tick is due sooner.
 */
public final class SchedulerRole {
    private final ScheduleTicker ticker;
    private final LeaseRescuer rescuer;
    private final LeaderElection election;
    private final Duration tick;
    private final Runnable eachPass;
    private final Runnable chores;
    private final PeriodicTask loop;

    public SchedulerRole(ScheduleTicker ticker, LeaseRescuer rescuer, LeaderElection election, Duration tick) {
        this(ticker, rescuer, election, tick, () -> { });
    }

    /** @param eachPass told at the start of every pass (a node's health check sees the loop alive) */
    public SchedulerRole(ScheduleTicker ticker, LeaseRescuer rescuer, LeaderElection election, Duration tick,
                         Runnable eachPass) {
        this(ticker, rescuer, election, tick, eachPass, () -> { });
    }

    /** @param chores run after lease recovery in every pass (the workflows' sweeper; each checks leadership itself) */
    public SchedulerRole(ScheduleTicker ticker, LeaseRescuer rescuer, LeaderElection election, Duration tick,
                         Runnable eachPass, Runnable chores) {
        this.chores = Objects.requireNonNull(chores, "chores");
        this.eachPass = Objects.requireNonNull(eachPass, "eachPass");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.rescuer = Objects.requireNonNull(rescuer, "rescuer");
        this.election = Objects.requireNonNull(election, "election");
        this.tick = Objects.requireNonNull(tick, "tick");
        this.loop = new PeriodicTask("ff-scheduler", tick, this::runOnce);
    }

    /** One pass: the ticker (which campaigns), then lease recovery, then the chores. Returns how long to wait before the next pass. */
    public Duration runOnce() {
        eachPass.run();
        ticker.runOnce();
        rescuer.runOnce();
        chores.run();
        return ticker.untilNextPass(tick);
    }

    public void start() {
        loop.start();
    }

    /** Stops the loop, then gives up leadership (a standby takes over at its next campaign). */
    public void stop() {
        loop.stop();
        election.resign();
    }
}
