package io.forgeflow.server;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.forgeflow.adapter.postgres.PostgresHealth;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The node's Dropwizard health checks, answered on the admin port's {@code /healthcheck}: {@code database} (it answers
 * a query), {@code migrations} (no changeset pending), and, by role, {@code leader-election} (the scheduler loop
 * campaigns every tick) and {@code worker-loops} (the worker's claimer, acknowledger, heartbeat and wake-up threads are
 * alive). The database checks share the readiness probe (cached a second, on its own connection).
 */
final class NodeHealthChecks {
    private NodeHealthChecks() {
    }

    /** {@code database} and {@code migrations}, from the readiness probe. */
    static void registerDatabase(HealthCheckRegistry registry, PostgresHealth health) {
        registry.register("database", new HealthCheck() {
            @Override
            protected Result check() {
                Optional<String> detail = health.probe().detail();
                return detail.isPresent() && detail.get().startsWith("database unreachable")
                        ? Result.unhealthy(detail.get()) : Result.healthy("answers queries");
            }
        });
        registry.register("migrations", new HealthCheck() {
            @Override
            protected Result check() {
                Optional<String> detail = health.probe().detail();
                return detail.isPresent() ? Result.unhealthy(detail.get()) : Result.healthy("every changeset applied");
            }
        });
    }

    /**
     * The scheduler loop's pulse: {@link #beat()} at each pass (it campaigns, then acts if it leads). Unhealthy when no
     * pass started within {@code maxSilence}: the loop is stuck (a statement hanging past its timeouts) or dead.
     */
    static final class SchedulerPulse extends HealthCheck {
        private final LongSupplier nanos;
        private final long maxSilenceNanos;
        private final java.util.function.BooleanSupplier leading;
        private volatile long lastBeatNanos;

        SchedulerPulse(LongSupplier nanos, Duration maxSilence, java.util.function.BooleanSupplier leading) {
            this.nanos = nanos;
            this.maxSilenceNanos = maxSilence.toNanos();
            this.leading = leading;
            this.lastBeatNanos = nanos.getAsLong();
        }

        void beat() {
            lastBeatNanos = nanos.getAsLong();
        }

        @Override
        protected Result check() {
            long silent = nanos.getAsLong() - lastBeatNanos;
            if (silent > maxSilenceNanos) {
                return Result.unhealthy("the scheduler loop has not campaigned for " + Duration.ofNanos(silent).toMillis()
                        + " ms (at most " + Duration.ofNanos(maxSilenceNanos).toMillis() + " ms expected)");
            }
            return Result.healthy(leading.getAsBoolean() ? "campaigning: leads the scheduler" : "campaigning: standby");
        }
    }

    /**
     * The worker's loop threads, as they were right after it started: each must still be alive (a loop that stopped on
     * an unexpected exception ends its thread). Found by name: the worker names each of its loops
     * {@code <loop>-<worker id>}.
     */
    static final class WorkerLoops extends HealthCheck {
        private final String workerId;
        private volatile List<Thread> loops = List.of();

        WorkerLoops(String workerId) {
            this.workerId = workerId;
        }

        /** Call once the worker has started. */
        void capture() {
            capture(Thread.getAllStackTraces().keySet());
        }

        void capture(Set<Thread> threads) {
            List<Thread> found = new ArrayList<>();
            for (Thread t : threads) {
                if (t.getName().endsWith("-" + workerId) && t.isAlive()) {
                    found.add(t);
                }
            }
            loops = List.copyOf(found);
        }

        @Override
        protected Result check() {
            List<Thread> current = loops;
            if (current.isEmpty()) {
                return Result.unhealthy("the worker's loops are not running (not started yet, or stopped)");
            }
            List<String> dead = current.stream().filter(t -> !t.isAlive()).map(Thread::getName).sorted().toList();
            if (!dead.isEmpty()) {
                return Result.unhealthy("worker loop(s) stopped: " + String.join(", ", dead)
                        + "; the node log has the reason. Restart the node");
            }
            return Result.healthy(current.size() + " loops alive");
        }
    }
}
