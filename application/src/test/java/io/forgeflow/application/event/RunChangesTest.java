package io.forgeflow.application.event;

import io.forgeflow.application.testkit.MutableClock;
import io.forgeflow.application.testkit.RunTransitions;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunEvents;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The run changes built from what the run queue returned, as the event stream shows them. */
class RunChangesTest {
    final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
    final List<List<RunChange>> published = new ArrayList<>();
    final RunEvents events = new RunEvents() {
        @Override
        public void publish(List<RunChange> changes) {
            published.add(List.copyOf(changes));
        }

        @Override
        public AutoCloseable subscribe(Listener listener) {
            return () -> { };
        }
    };
    final RunChanges changes = new RunChanges(events, clock);
    final RunFence fence = new RunFence("r1", "w1", 2);

    @Test
    void claimedRunsAreRunningUnderTheClaimer() {
        Instant now = clock.instant();
        Run run = RunTransitions.claim(Run.pending("r1", "j1", 3, 5, now, "shell", Map.of(), 60, now), "w1", now,
                now.plusSeconds(30));

        changes.claimed("w1", List.of(run));

        assertThat(published).containsExactly(List.of(new RunChange("r1", "j1", RunStatus.RUNNING, 1, "w1", now)));
    }

    @Test
    void endedAttemptsTakeTheStatusTheyWereAcknowledgedWithAndSkipAnUnknownJob() {
        Acknowledgement retry = new Acknowledgement(fence, AttemptOutcome.FAILED, RunStatus.PENDING,
                Duration.ofSeconds(3), "", "boom");
        Acknowledgement other = new Acknowledgement(new RunFence("r2", "w1", 1), AttemptOutcome.SUCCEEDED,
                RunStatus.SUCCEEDED, Duration.ZERO, "", null);

        changes.ended(List.of(retry, other), Arrays.asList("j1", null));

        assertThat(published).containsExactly(List.of(new RunChange("r1", "j1", RunStatus.PENDING, 2, "w1",
                clock.instant())));
    }

    @Test
    void releasedAttemptsArePendingAgain() {
        changes.released(Set.of(fence, new RunFence("r9", "w1", 1)), Map.of(fence, "j1"));

        assertThat(published).containsExactly(List.of(new RunChange("r1", "j1", RunStatus.PENDING, 2, "w1",
                clock.instant())));
    }

    @Test
    void nothingChangedPublishesNothing() {
        changes.claimed("w1", List.of());
        changes.ended(List.of(), List.of());
        changes.released(Set.of(), Map.of());

        assertThat(published).isEmpty();
    }

    @Test
    void theSilentPublisherNeverBuildsChanges() {
        RunChanges.NONE.ended(List.of(new Acknowledgement(fence, AttemptOutcome.SUCCEEDED, RunStatus.SUCCEEDED,
                Duration.ZERO, "", null)), Arrays.asList((String) null));
        RunChanges.NONE.released(Set.of(fence), Map.of());
        RunChanges.NONE.claimed("w1", java.util.Collections.singletonList((Run) null));
        assertThatThrownBy(() -> new RunChanges(null, clock)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RunChanges(events, null)).isInstanceOf(NullPointerException.class);
    }
}
