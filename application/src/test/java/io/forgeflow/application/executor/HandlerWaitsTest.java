package io.forgeflow.application.executor;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.RunTransitions;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.HandlerRegistry;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

class HandlerWaitsTest {
    static final Instant NOW = Scenario.START;

    /** Live handlers as given; counts the reads. */
    static final class Registry implements HandlerRegistry {
        final Set<String> live;
        final AtomicInteger reads = new AtomicInteger();
        boolean failing;

        Registry(String... live) {
            this.live = Set.of(live);
        }

        @Override
        public void announce(String workerId, Set<String> handlers, Duration ttl) {
        }

        @Override
        public void withdraw(String workerId) {
        }

        @Override
        public Set<String> liveHandlers() {
            reads.incrementAndGet();
            if (failing) {
                throw new IllegalStateException("database down");
            }
            return live;
        }
    }

    static Run pending(String executor, Map<String, Object> payload) {
        return Run.pending("r1", "j1", 3, 5, NOW, executor, payload, 60, NOW);
    }

    final Scenario s = new Scenario();

    Job job(String executor, Map<String, Object> payload, JobStatus status) {
        Job submitted = s.submit(aDraft());
        JobSpec spec = submitted.spec();
        JobSpec java = new JobSpec(spec.name(), executor, payload, spec.cronExpr(), spec.runAt(), spec.timezone(),
                spec.priority(), spec.maxAttempts(), spec.timeoutSeconds(), spec.catchUp(), spec.idempotencyKey(),
                spec.queue(), spec.concurrencyKey(), spec.maxConcurrent(), spec.overlap(), spec.uniqueKey());
        return new Job(submitted.id(), java, status, submitted.nextRunAt(), NOW, NOW);
    }

    @Test
    void aPendingHandlerRunWaitsForItsHandlerWhileNoLiveWorkerHasIt() {
        Registry registry = new Registry("other");
        HandlerWaits.Snapshot waits = new HandlerWaits(registry).snapshot();

        assertThat(waits.of(pending("java", Map.of("handler", "send-receipt")))).isEqualTo("handler send-receipt");
        assertThat(waits.of(pending("java", Map.of("handler", "other")))).isNull();
    }

    @Test
    void aSnapshotReadsTheLiveHandlersOnceAndOnlyForHandlerRuns() {
        Registry registry = new Registry("a");
        HandlerWaits.Snapshot waits = new HandlerWaits(registry).snapshot();

        assertThat(waits.of(pending("shell", Map.of("command", "true")))).isNull();
        assertThat(registry.reads).hasValue(0);
        waits.of(pending("java", Map.of("handler", "a")));
        waits.of(pending("java", Map.of("handler", "b")));
        assertThat(registry.reads).hasValue(1);
        new HandlerWaits(registry).snapshot().of(pending("java", Map.of("handler", "a")));
        assertThat(registry.reads).hasValue(2);
    }

    @Test
    void aRunThatIsNotPendingWaitsForNothing() {
        HandlerWaits.Snapshot waits = new HandlerWaits(new Registry()).snapshot();
        Run running = RunTransitions.claim(pending("java", Map.of("handler", "h")), "w1", NOW, NOW.plusSeconds(30));

        assertThat(running.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(waits.of(running)).isNull();
    }

    @Test
    void aHandlerRunWithoutAHandlerNameWaitsForNothing() {
        assertThat(new HandlerWaits(new Registry()).snapshot().of(pending("java", Map.of()))).isNull();
    }

    @Test
    void anActiveHandlerJobWaitsAndAPausedOneDoesNot() {
        HandlerWaits.Snapshot waits = new HandlerWaits(new Registry("live")).snapshot();

        assertThat(waits.of(job("java", Map.of("handler", "report"), JobStatus.ACTIVE))).isEqualTo("handler report");
        assertThat(waits.of(job("java", Map.of("handler", "live"), JobStatus.ACTIVE))).isNull();
        assertThat(waits.of(job("java", Map.of("handler", "report"), JobStatus.PAUSED))).isNull();
        assertThat(waits.of(job("shell", Map.of("command", "true"), JobStatus.ACTIVE))).isNull();
    }

    @Test
    void anUnreadableRegistryShowsNothingAsWaiting() {
        Registry registry = new Registry();
        registry.failing = true;

        assertThat(new HandlerWaits(registry).snapshot().of(pending("java", Map.of("handler", "h")))).isNull();
    }

    @Test
    void withoutARegistryNothingEverWaits() {
        assertThat(HandlerWaits.NONE.snapshot().of(pending("java", Map.of("handler", "h")))).isNull();
    }

    @Test
    void theQueriesOfTheApiCarryTheWaitsTheyWereGiven() {
        HandlerWaits waits = new HandlerWaits(new Registry());

        assertThat(new io.forgeflow.application.run.QueryRuns(s.store.runs(), waits).waits()).isSameAs(waits);
        assertThat(new io.forgeflow.application.job.QueryJobs(s.store.jobs(), waits).waits()).isSameAs(waits);
        assertThat(new io.forgeflow.application.run.QueryRuns(s.store.runs()).waits()).isSameAs(HandlerWaits.NONE);
        assertThat(new io.forgeflow.application.job.QueryJobs(s.store.jobs()).waits()).isSameAs(HandlerWaits.NONE);
    }
}
