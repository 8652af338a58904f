package io.forgeflow.application.executor;

import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.HandlerRegistry;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Set;

/**
 * What a run or job of executor {@value HandlerPayload#EXECUTOR} waits for: {@code "handler send-receipt"} while no
 * live embedded worker has its handler (the API's {@code waiting_for}), else nothing. A pending run waits; so does an
 * active job. Such runs are accepted and kept, never failed: they start once a worker with the handler comes.
 */
public final class HandlerWaits {
    /** Never waiting: for a cluster without a handler registry. */
    public static final HandlerWaits NONE = new HandlerWaits(null);

    private static final Logger LOG = LoggerFactory.getLogger(HandlerWaits.class);

    private final HandlerRegistry registry;

    /** @param registry the live handlers; null for {@link #NONE} */
    public HandlerWaits(HandlerRegistry registry) {
        this.registry = registry;
    }

    /** A view for one response: the live handlers are read once, at the first run or job that needs them. */
    public Snapshot snapshot() {
        return new Snapshot();
    }

    /** The live handlers as read once; not thread-safe (one response). */
    public final class Snapshot {
        private Set<String> live;

        private Snapshot() {
        }

        /** {@code "handler <name>"} for a pending handler run no live worker can take; null otherwise. */
        public String of(Run run) {
            return run.status() == RunStatus.PENDING ? waitingFor(run.executor(), run.payload()) : null;
        }

        /** {@code "handler <name>"} for an active handler job no live worker can run; null otherwise. */
        public String of(Job job) {
            return job.status() == JobStatus.ACTIVE ? waitingFor(job.spec().executor(), job.spec().payload()) : null;
        }

        private String waitingFor(String executor, Map<String, Object> payload) {
            if (registry == null || !HandlerPayload.EXECUTOR.equals(executor)) {
                return null;
            }
            String handler = HandlerPayload.handlerOf(payload);
            if (handler == null) {
                return null;
            }
            if (live == null) {
                try {
                    live = registry.liveHandlers();
                } catch (RuntimeException e) {
                    LOG.debug("could not read the live handlers ({}); showing none as waiting", e.toString());
                    live = null;
                    return null;
                }
            }
            return live.contains(handler) ? null : "handler " + handler;
        }
    }
}
