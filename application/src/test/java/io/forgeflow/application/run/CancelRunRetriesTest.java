package io.forgeflow.application.run;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CancelRunRetriesTest {
    final Scenario s = new Scenario();

    @Test
    void aRunThatKeepsChangingIsTriedExactlyThreeTimes() {
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        AtomicInteger requests = new AtomicInteger();
        // pending: a claimer takes it first; running: a draining worker gives it back first
        InterleavingRunRepository flapping = new InterleavingRunRepository(s.store.runs())
                .beforeEachCancelPending(() -> s.claim("w1"))
                .beforeEachRequestCancel(() -> {
                    requests.incrementAndGet();
                    s.store.queue().release(List.of(Scenario.fence(s.run(run.id()))));
                });

        assertThatThrownBy(() -> new CancelRun(flapping).cancel(run.id())).isInstanceOf(ConflictException.class);

        assertThat(flapping.cancelPendingCalls.get() + requests.get()).as("tries").isEqualTo(3);
    }
}
