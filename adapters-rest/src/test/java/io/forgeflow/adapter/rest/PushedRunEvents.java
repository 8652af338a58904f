package io.forgeflow.adapter.rest;

import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.run.RunChange;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Run events a test pushes, heard by every subscriber at once on the pushing thread. */
final class PushedRunEvents implements RunEvents {
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    @Override
    public void publish(List<RunChange> changes) {
        listeners.forEach(l -> l.changed(changes));
    }

    @Override
    public AutoCloseable subscribe(Listener listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }
}
