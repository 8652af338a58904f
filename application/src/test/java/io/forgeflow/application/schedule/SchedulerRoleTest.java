package io.forgeflow.application.schedule;

import io.forgeflow.application.Scenario;
import io.forgeflow.application.lease.LeaseRescuer;
import io.forgeflow.application.testkit.Await;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.backoff.RetryPolicy;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;

class SchedulerRoleTest {
    final Scenario s = new Scenario();
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final List<Integer> recovered = new ArrayList<>();
    final ScheduleTicker ticker = new ScheduleTicker(s.store.jobs(), s.cron, election, s.signal, Duration.ofSeconds(60),
            n -> { });
    final LeaseRescuer rescuer = new LeaseRescuer(s.store.queue(),
            election, new RetryPolicy(Duration.ofSeconds(5), Duration.ofMinutes(15)), recovered::add);
    final SchedulerRole role = new SchedulerRole(ticker, rescuer, election, Duration.ofSeconds(1));

    @Test
    void aPassFiresDueTicksAndRecoversExpiredLeases() {
        String recurring = s.submit(aRecurringDraft("* * * * *")).id();
        Run orphan = s.onlyRunOf(s.submit(aDraft()).id());
        s.claim("vanished");
        s.clock.advance(Duration.ofMinutes(2));

        role.runOnce();

        assertThat(s.runsOf(recurring)).isNotEmpty();
        assertThat(s.store.runs().find(orphan.id()).orElseThrow().status()).isEqualTo(RunStatus.PENDING);
        assertThat(recovered).containsExactly(1);
    }

    @Test
    void aPassAsksForTheNextPassNoLaterThanTheTick() {
        assertThat(role.runOnce()).isLessThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theLoopRunsUntilStoppedAndThenResigns() {
        role.start();
        Await.until("the loop campaigns", () -> election.campaigns() > 0);
        assertThat(alive("ff-scheduler")).isTrue();
        role.stop();

        assertThat(election.resignations()).isEqualTo(1);
        assertThat(alive("ff-scheduler")).as("the loop ended").isFalse();
    }

    /** Whether a thread of this name is alive (the roles' loops are joined when stopped). */
    static boolean alive(String threadName) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
    }
}
