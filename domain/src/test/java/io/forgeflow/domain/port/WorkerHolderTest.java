package io.forgeflow.domain.port;

import io.forgeflow.domain.error.UnavailableException;
import io.forgeflow.domain.execution.ExecutorSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 37's values: a worker's fenced holder, a heartbeat's answer, and what a node says of its jobs. */
class WorkerHolderTest {

    @Test
    void aHolderIsTheLabelAndAFreshIncarnation() {
        String first = WorkerHolder.next("node-1");
        String second = WorkerHolder.next("node-1");

        assertThat(first).matches("node-1#[0-9a-f]{32}");
        assertThat(second).matches("node-1#[0-9a-f]{32}").isNotEqualTo(first);
        assertThat(WorkerHolder.labelOf(first)).isEqualTo("node-1");
        assertThat(WorkerHolder.labelOf(WorkerHolder.next("a#b"))).as("a label may hold #").isEqualTo("a#b");
    }

    @Test
    void onlyAnIncarnationIsStrippedFromAHolder() {
        assertThat(WorkerHolder.labelOf("w1")).isEqualTo("w1");
        assertThat(WorkerHolder.labelOf("w#1")).isEqualTo("w#1");
        assertThat(WorkerHolder.labelOf("w#" + "a".repeat(31))).as("31 digits").isEqualTo("w#" + "a".repeat(31));
        assertThat(WorkerHolder.labelOf("w#" + "A".repeat(32))).as("upper case").isEqualTo("w#" + "A".repeat(32));
        assertThat(WorkerHolder.labelOf("w#" + "a".repeat(32) + "x")).isEqualTo("w#" + "a".repeat(32) + "x");
        assertThatThrownBy(() -> WorkerHolder.labelOf(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> WorkerHolder.next(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aHeartbeatOfAnEndedHolderConfirmsNothing() {
        RunFence fence = new RunFence("r1", "w1", 1);
        RunQueue.Heartbeat ended = RunQueue.Heartbeat.ended();

        assertThat(ended.alive()).isFalse();
        assertThat(ended.extended()).isEmpty();
        assertThat(ended.cancelRequested()).isEmpty();
        assertThat(ended.unheld()).isEmpty();
        assertThatThrownBy(() -> new RunQueue.Heartbeat(Set.of(fence), Set.of(), Set.of(), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ended holder");
        assertThatThrownBy(() -> new RunQueue.Heartbeat(Set.of(), Set.of("r1"), Set.of(), false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RunQueue.Heartbeat(Set.of(), Set.of(), Set.of(fence), false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHeartbeatOfALiveHolderKeepsWhatItWasGiven() {
        RunFence held = new RunFence("r1", "w1", 1);
        RunFence lost = new RunFence("r2", "w1", 1);

        RunQueue.Heartbeat three = new RunQueue.Heartbeat(Set.of(held), Set.of("r1"), Set.of(lost));
        RunQueue.Heartbeat two = new RunQueue.Heartbeat(Set.of(held), Set.of());

        assertThat(three.alive()).isTrue();
        assertThat(three.extended()).containsExactly(held);
        assertThat(three.cancelRequested()).containsExactly("r1");
        assertThat(three.unheld()).containsExactly(lost);
        assertThat(two.alive()).isTrue();
        assertThat(two.unheld()).isEmpty();
    }

    @Test
    void anOutageIsFoundAnywhereInTheCauseChain() {
        UnavailableException away = new UnavailableException("database away", null);

        assertThat(UnavailableException.in(away)).isTrue();
        assertThat(UnavailableException.in(new RuntimeException(new IllegalStateException(away)))).isTrue();
        assertThat(UnavailableException.in(new RuntimeException(new IllegalStateException()))).isFalse();
        assertThat(UnavailableException.in(null)).isFalse();
        assertThat(away).hasMessage("database away");
    }

    @Test
    void theCauseChainIsReadToSixtyFourLinksSoACycleEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);                                       // a cycle: a -> b -> a
        assertThat(UnavailableException.in(a)).isFalse();
        assertThat(UnavailableException.in(chainWithOutageAt(63))).as("the 64th link").isTrue();
        assertThat(UnavailableException.in(chainWithOutageAt(64))).as("past the 64th").isFalse();
    }

    private static Throwable chainWithOutageAt(int depth) {
        Throwable t = new UnavailableException("away", null);
        for (int i = 0; i < depth; i++) {
            t = new RuntimeException(t);
        }
        return t;
    }

    @Test
    void aBlankJobUserIsTheNodesOwn() {
        assertThat(new ExecutorSettings(false, Duration.ofSeconds(10), " ").jobUser()).isNull();
        assertThat(new ExecutorSettings(false, Duration.ofSeconds(10), "nobody").jobUser()).isEqualTo("nobody");
        assertThat(new ExecutorSettings(false, Duration.ofSeconds(10)).jobUser()).isNull();
    }

    @Test
    void aNodeThatSaysNothingOfItsJobsHasNoContainment() {
        Instant t = Instant.parse("2026-12-06T00:00:00Z");
        NodeRegistry.NodeInfo old = new NodeRegistry.NodeInfo("w", Set.of("worker"), "1", t, false);
        NodeRegistry.NodeInfo now = new NodeRegistry.NodeInfo("w", Set.of("worker"), "1", t, true, "pid-namespace",
                "nobody");

        assertThat(old.containment()).isNull();
        assertThat(old.jobUser()).isNull();
        assertThat(now.containment()).isEqualTo("pid-namespace");
        assertThat(now.jobUser()).isEqualTo("nobody");
        assertThat(now.leader()).isTrue();
    }
}
