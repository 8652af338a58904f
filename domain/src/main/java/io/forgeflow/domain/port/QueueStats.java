package io.forgeflow.domain.port;

import io.forgeflow.domain.run.RunStatus;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/** How the run queue looks now, for metrics: cheap enough to be read on every scrape. */
public interface QueueStats {

    /**
     * Runs per status and the age of the oldest due pending run, read in one round trip on the database clock. The
     * counts use the status indexes; the lag is one index probe per priority.
     */
    Snapshot snapshot();

    /**
     * @param depth runs per status (every status present, zero when none)
     * @param lag   how long the oldest pending run has been due (now minus its {@code scheduled_for}); zero when no
     *              pending run is due
     * @param throttled pending runs with a throttle that are not due yet: most wait for their key's window (issue 44)
     * @param tenants   pending and running runs of each tenant other than default that has any (issue 42): tenant
     *                  to its {@link TenantLoad}
     */
    /** A tenant's runs waiting to start and running. */
    record TenantLoad(long pending, long running) {
        public long live() {
            return pending + running;
        }
    }

    record Snapshot(Map<RunStatus, Long> depth, Duration lag, long throttled, Map<String, TenantLoad> tenants) {
        public Snapshot(Map<RunStatus, Long> depth, Duration lag) {
            this(depth, lag, 0);
        }

        public Snapshot(Map<RunStatus, Long> depth, Duration lag, long throttled) {
            this(depth, lag, throttled, Map.of());
        }

        public Snapshot {
            Objects.requireNonNull(lag, "lag");
            Map<RunStatus, Long> all = new EnumMap<>(RunStatus.class);
            for (RunStatus status : RunStatus.values()) {
                all.put(status, depth == null ? 0L : depth.getOrDefault(status, 0L));
            }
            depth = Map.copyOf(all);
            lag = lag.isNegative() ? Duration.ZERO : lag;
            tenants = tenants == null ? Map.of() : Map.copyOf(tenants);
        }
    }
}
