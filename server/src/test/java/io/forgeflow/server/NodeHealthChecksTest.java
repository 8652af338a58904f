package io.forgeflow.server;

import com.codahale.metrics.health.HealthCheck;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class NodeHealthChecksTest {

    @Test
    void theSchedulerPulseIsHealthyWhilePassesStartAndUnhealthyOnceSilentTooLong() {
        AtomicLong nanos = new AtomicLong(0);
        NodeHealthChecks.SchedulerPulse pulse = new NodeHealthChecks.SchedulerPulse(nanos::get, Duration.ofSeconds(10),
                () -> true);
        nanos.addAndGet(Duration.ofSeconds(9).toNanos());
        assertThat(pulse.execute().isHealthy()).isTrue();
        assertThat(pulse.execute().getMessage()).contains("leads");

        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        HealthCheck.Result silent = pulse.execute();
        assertThat(silent.isHealthy()).isFalse();
        assertThat(silent.getMessage()).contains("has not campaigned for 11000 ms");

        pulse.beat();
        assertThat(pulse.execute().isHealthy()).isTrue();
    }

    @Test
    void workerLoopsAreUnhealthyOnceOneOfTheirThreadsEnds() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Thread claimer = new Thread(() -> awaitQuietly(release), "ff-claimer-w9");
        Thread heartbeat = new Thread(() -> awaitQuietly(release), "ff-heartbeat-w9");
        Thread other = new Thread(() -> awaitQuietly(release), "ff-exec-1");
        claimer.start();
        heartbeat.start();
        other.start();
        NodeHealthChecks.WorkerLoops loops = new NodeHealthChecks.WorkerLoops("w9");
        assertThat(loops.execute().isHealthy()).as("before the worker started").isFalse();

        loops.capture(Set.of(claimer, heartbeat, other));
        assertThat(loops.execute().isHealthy()).isTrue();
        assertThat(loops.execute().getMessage()).isEqualTo("2 loops alive");

        release.countDown();
        claimer.join(10_000);
        heartbeat.join(10_000);
        other.join(10_000);
        HealthCheck.Result dead = loops.execute();
        assertThat(dead.isHealthy()).isFalse();
        assertThat(dead.getMessage()).contains("ff-claimer-w9", "ff-heartbeat-w9").doesNotContain("ff-exec");
    }

    @Test
    void dropwizardNamesBecomeSnakeCase() {
        assertThat(DropwizardMetricsBridge.snakeCase("io.dropwizard.db.ManagedPooledDataSource.postgresql.releasedIdle"))
                .isEqualTo("io.dropwizard.db.managed_pooled_data_source.postgresql.released_idle");
        assertThat(DropwizardMetricsBridge.snakeCase("org.eclipse.jetty.server.HttpConnectionFactory.127.0.0.1.8080.connections"))
                .isEqualTo("org.eclipse.jetty.server.http_connection_factory.127.0.0.1.8080.connections");
        assertThat(DropwizardMetricsBridge.snakeCase("TimeBoundHealthCheck-pool.running"))
                .isEqualTo("time_bound_health_check-pool.running");
        assertThat(DropwizardMetricsBridge.snakeCase("HTTPServer.x")).as("an acronym ends before the next word").isEqualTo("http_server.x");
        assertThat(DropwizardMetricsBridge.snakeCase("already_snake.1xx-responses")).isEqualTo("already_snake.1xx-responses");
        assertThat(DropwizardMetricsBridge.isJvm("jvm.threads.count")).isTrue();
        assertThat(DropwizardMetricsBridge.isJvm("io.dropwizard.jvm")).isFalse();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
