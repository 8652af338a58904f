package io.forgeflow.domain.workflow;

import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.run.IllegalRunTransitionException;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkflowValuesTest {
    static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void aFreshPendingRunWaitsForParentsKeepingEverythingElse() {
        Run pending = Run.pending("r1", "j1", 3, 2, NOW, "shell", Map.of("command", "true"), 60, NOW);
        Run waiting = pending.waitingForParents();
        assertThat(waiting.status()).isEqualTo(RunStatus.WAITING);
        assertThat(waiting.id()).isEqualTo("r1");
        assertThat(waiting.scheduledFor()).isEqualTo(NOW);
        assertThat(waiting.priority()).isEqualTo(2);
        assertThat(waiting.payload()).isEqualTo(Map.of("command", "true"));
        assertThatThrownBy(waiting::waitingForParents).isInstanceOf(IllegalRunTransitionException.class);
        Run claimed = new Run("r1", "j1", RunStatus.RUNNING, 1, 3, 2, NOW, NOW, null, "w", NOW.plusSeconds(30), null,
                null, "shell", Map.of("command", "true"), 60, false, NOW);
        assertThatThrownBy(claimed::waitingForParents).isInstanceOf(IllegalRunTransitionException.class);
        Run retried = new Run("r2", "j1", RunStatus.PENDING, 1, 3, 5, NOW, null, null, null, null, null, null, "shell",
                Map.of(), 60, false, NOW);
        assertThatThrownBy(retried::waitingForParents).isInstanceOf(IllegalRunTransitionException.class);
    }

    @Test
    void aBatchIsOpenUntilItCompletes() {
        Workflows.BatchProgress open = new Workflows.BatchProgress("b", null, null, "h", NOW, null, 1, 0, 1, 0, 0, 0, 0,
                null);
        Workflows.BatchProgress done = new Workflows.BatchProgress("b", null, null, "h", NOW, NOW, 1, 0, 0, 0, 1, 0, 0,
                null);
        assertThat(open.status()).isEqualTo("open");
        assertThat(done.status()).isEqualTo("completed");
    }

    @Test
    void aBatchKeyUsedByAnotherRequestIsAnIdempotencyConflictNamingTheBatch() {
        ConflictException e = ConflictException.batchKeyUsed("k1", "b1");
        assertThat(e.code()).isEqualTo(ConflictException.IDEMPOTENCY_CONFLICT);
        assertThat(e.getMessage()).contains("'k1'").contains("different batch (b1)");
    }
}
