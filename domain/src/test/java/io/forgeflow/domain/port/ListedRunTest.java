package io.forgeflow.domain.port;

import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ListedRunTest {
    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");
    static final Run RUN = Run.pending("0190e0b4-7c3a-7d2e-8f00-000000000001", "0190e0b4-7c3a-7d2e-8f00-000000000002",
            3, 5, T, "shell", Map.of("command", "true"), 60, T);

    @Test
    void aListedRunNeedsItsRunAndTellsWhetherItsOutputWasCut() {
        assertThatThrownBy(() -> new ListedRun(null, false)).isInstanceOf(NullPointerException.class)
                .hasMessage("run");
        assertThat(new ListedRun(RUN, true).outputTruncated()).isTrue();
        assertThat(ListedRun.OUTPUT_TAIL_CHARS).isEqualTo(4096);
    }

    @Test
    void byDefaultARepositoryListsWholeRunsNoneMarkedCutWithTheSameCursor() {
        RunRepository repository = new ListOnly(new Page<>(List.of(RUN), "next"));

        Page<ListedRun> page = repository.listForDisplay(null, null, 1, null, ListBudget.DEFAULT);

        assertThat(page.items()).containsExactly(new ListedRun(RUN, false));
        assertThat(page.nextCursor()).isEqualTo("next");
    }

    /** A repository that only lists (the other methods are not called here). */
    record ListOnly(Page<Run> page) implements RunRepository {
        @Override
        public Run insert(Run run) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Run> find(String id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<io.forgeflow.domain.run.Attempt> attempts(String runId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Page<Run> listMatching(RunFilter filter, int limit, String cursor) {
            return page;
        }

        @Override
        public Map<io.forgeflow.domain.run.RunStatus, Long> countByStatus(String tenant) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Run> cancelPending(String id, String reason) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Run> requestCancel(String id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Run> requeue(String id, int attemptBudget) {
            throw new UnsupportedOperationException();
        }
    }
}
