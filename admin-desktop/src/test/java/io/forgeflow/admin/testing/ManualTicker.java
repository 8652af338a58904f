package io.forgeflow.admin.testing;

import io.forgeflow.admin.support.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A ticker the test cranks: {@link #tick()} runs every registered action once. */
public final class ManualTicker implements Ticker {
    private final List<Runnable> actions = new ArrayList<>();
    private Duration lastPeriod;

    @Override
    public Cancellable every(Duration period, Runnable action) {
        lastPeriod = period;
        actions.add(action);
        return () -> actions.remove(action);
    }

    public void tick() {
        new ArrayList<>(actions).forEach(Runnable::run);
    }

    public int active() {
        return actions.size();
    }

    public Duration lastPeriod() {
        return lastPeriod;
    }
}
