package io.forgeflow.application.lease;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;

/** The operator reads in the log where each recovered run went. */
class LeaseRescuerLogTest {
    final Scenario s = new Scenario();
    final LeaseRescuer rescuer = new LeaseRescuer(s.store.queue(), FakeLeaderElection.leading(),
            new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15)), n -> { });
    final ListAppender<ILoggingEvent> log = new ListAppender<>();
    final Logger logger = (Logger) LoggerFactory.getLogger(LeaseRescuer.class);

    LeaseRescuerLogTest() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(log);
    }

    Run heldByADeadWorker(int maxAttempts) {
        s.submit(aDraft().withMaxAttempts(maxAttempts));
        return s.claim("dead-worker");
    }

    String logAfterRecovery(Run held, RunStatus expected) {
        s.advance(Duration.ofSeconds(31));
        assertThat(rescuer.runOnce()).isEqualTo(1);
        assertThat(s.run(held.id()).status()).isEqualTo(expected);
        assertThat(log.list).hasSize(1);
        return log.list.get(0).getFormattedMessage();
    }

    @Test
    void aRunWithAttemptsLeftIsBackInTheQueue() {
        Run held = heldByADeadWorker(3);
        assertThat(logAfterRecovery(held, RunStatus.PENDING)).contains("lease of attempt 1 expired; back to the queue, due ");
    }

    @Test
    void aRunOnItsLastAttemptIsDeadLettered() {
        Run held = heldByADeadWorker(1);
        assertThat(logAfterRecovery(held, RunStatus.DEAD)).contains("lease of attempt 1 expired; attempts exhausted, dead-lettered");
    }
}
