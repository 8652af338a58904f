package io.forgeflow.application.testkit;

import io.forgeflow.domain.port.LeaderElection;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A leader election a test decides: {@link #campaign()} wins exactly when {@link #setWinsCampaigns} says so.
 * Counts campaigns and resignations. Thread-safe.
 */
public final class FakeLeaderElection implements LeaderElection {
    private final AtomicInteger campaigns = new AtomicInteger();
    private final AtomicInteger resignations = new AtomicInteger();
    private volatile boolean winsCampaigns;
    private volatile boolean leader;

    public FakeLeaderElection(boolean winsCampaigns) {
        this.winsCampaigns = winsCampaigns;
    }

    /** Leads now and wins every campaign. */
    public static FakeLeaderElection leading() {
        FakeLeaderElection election = new FakeLeaderElection(true);
        election.leader = true;
        return election;
    }

    /** Never leads until told to. */
    public static FakeLeaderElection standby() {
        return new FakeLeaderElection(false);
    }

    /** Whether later campaigns win; leadership held now is kept until the next campaign or {@link #resign()}. */
    public void setWinsCampaigns(boolean wins) {
        this.winsCampaigns = wins;
    }

    /** Leads (or not) at once, and wins (or loses) later campaigns likewise: a lost lock, a takeover. */
    public void setLeader(boolean leads) {
        this.winsCampaigns = leads;
        this.leader = leads;
    }

    @Override
    public boolean campaign() {
        campaigns.incrementAndGet();
        leader = winsCampaigns;
        return leader;
    }

    @Override
    public boolean isLeader() {
        return leader;
    }

    @Override
    public void resign() {
        resignations.incrementAndGet();
        leader = false;
    }

    public int campaigns() {
        return campaigns.get();
    }

    public int resignations() {
        return resignations.get();
    }
}
