package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One notifier for a node: the wake-up signal and the run events share its two connections, each channel keeps its own
 * coalescing, and a dropped listening connection is reopened for both.
 */
class PostgresNotifierIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration WITHIN = Duration.ofSeconds(10);

    final RecordingConnections recording = new RecordingConnections(pg);
    final PostgresNotifier notifier = new PostgresNotifier(recording);
    final PostgresWorkSignal signal = new PostgresWorkSignal(notifier);
    final PostgresRunEvents events = new PostgresRunEvents(notifier);
    final PostgresWorkSignal otherNode = new PostgresWorkSignal(pg.connectionSupplier());

    @AfterEach
    void close() {
        events.close();
        signal.close();
        notifier.close();
        otherNode.close();
    }

    @Test
    void theWakeUpsAndTheRunEventsOfANodeShareOneListeningAndOneSendingConnection() throws Exception {
        PostgresRunEventsIT.Recorder heard = new PostgresRunEventsIT.Recorder();
        events.subscribe(heard);
        drain(signal);

        RunChange change = new RunChange(UUID.randomUUID().toString(), UUID.randomUUID().toString(), RunStatus.RUNNING,
                1, "w1", Instant.now().truncatedTo(ChronoUnit.MILLIS));
        events.publish(List.of(change));
        signal.runsBecameDue();

        assertThat(signal.await(WITHIN)).isTrue();
        Conditions.awaitTrue(() -> heard.changes.contains(change), WITHIN, "the node hears its own change");
        assertThat(recording.handedOut).as("one to listen, one to send").hasSize(2);
    }

    @Test
    void aDroppedListeningConnectionIsReopenedForEveryChannelAndEachListenerHearsOfIt() throws Exception {
        PostgresRunEventsIT.Recorder heard = new PostgresRunEventsIT.Recorder();
        events.subscribe(heard);
        drain(signal);

        recording.handedOut.get(0).close();                 // the listening connection, opened first

        Conditions.awaitTrue(() -> !heard.gaps.isEmpty(), WITHIN, "the run events hear of a gap");
        assertThat(signal.await(WITHIN)).as("the signal reports a possibly missed wake-up").isTrue();
        drain(signal);
        otherNode.runsBecameDue();
        assertThat(signal.await(WITHIN)).as("listening again on forgeflow_due").isTrue();
        RunChange after = new RunChange(UUID.randomUUID().toString(), UUID.randomUUID().toString(), RunStatus.DEAD,
                1, null, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        events.publish(List.of(after));
        Conditions.awaitTrue(() -> heard.changes.contains(after), WITHIN, "listening again on forgeflow_runs");
    }

    @Test
    void eachChannelIsCoalescedOnItsOwn() throws Exception {
        List<String> sentOnTheSide = new CopyOnWriteArrayList<>();
        PostgresNotifier.Channel slow = notifier.sender("forgeflow_test_slow", Duration.ofSeconds(30), () -> {
            sentOnTheSide.add("x");
            return List.of("x");
        });
        slow.request();
        Conditions.awaitTrue(() -> slow.notificationsSent() == 1, WITHIN, "the first send of the slow channel");
        slow.request();                                      // waits out its 30 s window

        for (int i = 0; i < 3; i++) {
            drain(otherNode);
            signal.runsBecameDue();
            assertThat(otherNode.await(WITHIN)).as("wake-ups are not held back by another channel's window").isTrue();
        }
        assertThat(slow.notificationsSent()).isEqualTo(1);
        assertThat(slow.requested()).isTrue();
    }

    @Test
    void channelNamesAreCheckedIdentifiersAndOnlyForgeFlowsOwnAreListenedTo() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> notifier.sender("bad; DROP TABLE runs",
                Duration.ZERO, List::of)).isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> notifier.listen("forgeflow_other", payloads -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("forgeflow_due");
    }

    @Test
    void aSendingOnlyNotifierNeverListensSendsForOthersAndHandsItsOwnChangesToItsListeners() throws Exception {
        RecordingConnections sending = new RecordingConnections(pg);
        PostgresNotifier polling = PostgresNotifier.sendingOnly(sending);
        PostgresWorkSignal pollingSignal = new PostgresWorkSignal(polling);
        PostgresRunEvents pollingEvents = new PostgresRunEvents(polling);
        try {
            PostgresRunEventsIT.Recorder heard = new PostgresRunEventsIT.Recorder();
            pollingEvents.subscribe(heard);
            drain(otherNode);

            pollingSignal.runsBecameDue();
            assertThat(pollingSignal.await(WITHIN)).as("its own waiters, at once").isTrue();
            assertThat(otherNode.await(WITHIN)).as("a listening node hears its NOTIFY").isTrue();
            RunChange change = new RunChange(UUID.randomUUID().toString(), UUID.randomUUID().toString(),
                    RunStatus.SUCCEEDED, 1, "w1", Instant.now().truncatedTo(ChronoUnit.MILLIS));
            pollingEvents.publish(List.of(change));
            Conditions.awaitTrue(() -> heard.changes.contains(change), WITHIN, "its own change, without LISTEN");

            signal.runsBecameDue(); // another node's wake-up does not reach it: it polls
            assertThat(pollingSignal.await(Duration.ofMillis(500))).isFalse();
            assertThat(polling.listensAtAll()).isFalse();
            assertThat(sending.handedOut).as("one connection, to send").hasSize(1);
        } finally {
            pollingEvents.close();
            pollingSignal.close();
            polling.close();
        }
    }

    private static void drain(PostgresWorkSignal signal) throws InterruptedException {
        while (signal.await(Duration.ofMillis(50))) {
            // keep draining
        }
    }
}
