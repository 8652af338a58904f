package io.forgeflow.application.testkit;

import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.QueueNames;
import io.forgeflow.domain.port.QueueRepository;
import io.forgeflow.domain.queue.QueueInfo;
import io.forgeflow.domain.queue.QueueLimits;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.tenant.Tenants;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** {@link QueueRepository} over an {@link InMemoryStore}, with the names, listing and counts of PostgresQueueRepository. */
public final class InMemoryQueueRepository implements QueueRepository {
    private final InMemoryStore store;

    InMemoryQueueRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public List<QueueInfo> list(String tenant) {
        synchronized (store) {
            // as QueueSql/list.sql: per tenant, its configured queues, 'default', those of its live runs and of its
            // live recurring jobs ('default' of the default tenant, or of the one asked for)
            TreeSet<String> slots = new TreeSet<>();
            store.queues.keySet().forEach(slots::add);
            slots.add(InMemoryStore.slot(tenant == null ? Tenants.DEFAULT : tenant, QueueNames.DEFAULT));
            store.runs.values().stream().filter(r -> r.status() == RunStatus.PENDING || r.status() == RunStatus.RUNNING)
                    .forEach(r -> slots.add(store.slotOf(r)));
            store.jobs.values().stream().filter(j -> j.spec().isRecurring()
                            && (j.status() == JobStatus.ACTIVE || j.status() == JobStatus.PAUSED))
                    .forEach(j -> slots.add(InMemoryStore.slot(j.tenant(), j.spec().queue())));
            List<QueueInfo> out = new ArrayList<>();
            for (String slot : slots) {
                int cut = slot.indexOf(Tenants.SEPARATOR);
                String t = slot.substring(0, cut);
                if (tenant == null || tenant.equals(t)) {
                    out.add(get(t, slot.substring(cut + 1)));
                }
            }
            return out;
        }
    }

    @Override
    public QueueInfo get(String tenant, String name) {
        QueueNames.require("queue", name);
        String slot = InMemoryStore.slot(tenant, name);
        synchronized (store) {
            Instant now = store.now();
            long pending = 0;
            long due = 0;
            long running = 0;
            Instant oldest = null;
            for (Run run : store.runs.values()) {
                if (!store.slotOf(run).equals(slot)) {
                    continue;
                }
                if (run.status() == RunStatus.PENDING) {
                    pending++;
                    if (!run.scheduledFor().isAfter(now)) {
                        due++;
                        oldest = oldest == null || run.scheduledFor().isBefore(oldest) ? run.scheduledFor() : oldest;
                    }
                } else if (run.status() == RunStatus.RUNNING) {
                    running++;
                }
            }
            InMemoryStore.QueueRow row = store.queues.get(slot);
            QueueLimits limits = row == null ? QueueLimits.NONE : row.limits();
            long starts = limits.rateLimit() == null ? 0 : store.queueStarts.getOrDefault(slot, List.of()).stream()
                    .filter(t -> t.isAfter(now.minusSeconds(limits.rateLimit().perSeconds()))).count();
            return new QueueInfo(tenant, name, pending, due, running, oldest == null ? Duration.ZERO
                    : Duration.between(oldest, now), row != null && row.paused(), limits, starts);
        }
    }

    @Override
    public QueueInfo configure(String tenant, String name, boolean setMaxRunning, boolean setRateLimit,
                               QueueLimits limits) {
        QueueNames.require("queue", name);
        String slot = InMemoryStore.slot(tenant, name);
        synchronized (store) {
            InMemoryStore.QueueRow row = store.queues.getOrDefault(slot, new InMemoryStore.QueueRow(false, QueueLimits.NONE));
            QueueLimits merged = new QueueLimits(setMaxRunning ? limits.maxRunning() : row.limits().maxRunning(),
                    setRateLimit ? limits.rateLimit() : row.limits().rateLimit());
            store.queues.put(slot, new InMemoryStore.QueueRow(row.paused(), merged));
            return get(tenant, name);
        }
    }

    @Override
    public QueueInfo setPaused(String tenant, String name, boolean paused) {
        QueueNames.require("queue", name);
        String slot = InMemoryStore.slot(tenant, name);
        synchronized (store) {
            InMemoryStore.QueueRow row = store.queues.getOrDefault(slot, new InMemoryStore.QueueRow(false, QueueLimits.NONE));
            store.queues.put(slot, new InMemoryStore.QueueRow(paused, row.limits()));
            return get(tenant, name);
        }
    }
}
