package io.forgeflow.application.testkit;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.TenantRepository;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.tenant.TenantInfo;
import io.forgeflow.domain.tenant.TenantSettings;
import io.forgeflow.domain.tenant.Tenants;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link TenantRepository} over an {@link InMemoryStore}, with the names, listing and counts of
 * PostgresTenantRepository. The in-memory claim does not rate-limit tenants, so {@code startsInWindow} is always 0.
 */
public final class InMemoryTenantRepository implements TenantRepository {
    private final InMemoryStore store;
    /** What operators set, by tenant (a tenant without an entry has weight 1 and no limits). */
    private final Map<String, TenantSettings> settings = new TreeMap<>();

    InMemoryTenantRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public List<TenantInfo> list() {
        synchronized (store) {
            // as TenantSql/list.sql: configured tenants, 'default', those of jobs and of pending runs
            TreeSet<String> names = new TreeSet<>(settings.keySet());
            names.add(Tenants.DEFAULT);
            store.jobs.values().stream().map(Job::tenant).forEach(names::add);
            store.runs.values().stream().filter(r -> r.status() == RunStatus.PENDING).map(Run::tenant)
                    .forEach(names::add);
            List<TenantInfo> out = new ArrayList<>();
            for (String name : names) {
                out.add(get(name));
            }
            return out;
        }
    }

    @Override
    public TenantInfo get(String name) {
        Tenants.require("tenant", name);
        synchronized (store) {
            long pending = 0;
            long running = 0;
            for (Run run : store.runs.values()) {
                if (!run.tenant().equals(name)) {
                    continue;
                }
                if (run.status() == RunStatus.PENDING) {
                    pending++;
                } else if (run.status() == RunStatus.RUNNING) {
                    running++;
                }
            }
            return new TenantInfo(name, settings.getOrDefault(name, TenantSettings.DEFAULT), pending, running, 0);
        }
    }

    @Override
    public TenantInfo configure(String name, boolean setWeight, boolean setMaxRunning, boolean setRateLimit,
                                TenantSettings given) {
        Tenants.require("tenant", name);
        synchronized (store) {
            TenantSettings was = settings.getOrDefault(name, TenantSettings.DEFAULT);
            settings.put(name, new TenantSettings(setWeight ? given.weight() : was.weight(),
                    setMaxRunning ? given.maxRunning() : was.maxRunning(),
                    setRateLimit ? given.rateLimit() : was.rateLimit()));
            return get(name);
        }
    }

    void clear() {
        settings.clear();
    }
}
