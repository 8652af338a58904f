package io.forgeflow.domain.port;

import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClaimHintTest {
    static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");

    static Run run(String id, int priority, Instant due) {
        return Run.pending(id, "01a2b3c4-0000-7000-8000-0000000000ff", 3, priority, due, "shell", Map.of(), 60, T0);
    }

    @Test
    void aHintIsTheLastRunOfAnAnswerInClaimOrder() {
        Run first = run("01a2b3c4-0000-7000-8000-000000000001", 1, T0);
        Run last = run("01a2b3c4-0000-7000-8000-000000000002", 5, T0.plusSeconds(3));

        assertThat(ClaimHint.after(List.of(first, last)))
                .isEqualTo(new ClaimHint(5, T0.plusSeconds(3), "01a2b3c4-0000-7000-8000-000000000002"));
        assertThat(ClaimHint.after(List.of())).as("an empty answer gives none").isNull();
    }

    @Test
    void aHintNamesItsDueTimeAndRun() {
        assertThatThrownBy(() -> new ClaimHint(5, null, "r")).isInstanceOf(NullPointerException.class)
                .hasMessage("scheduledFor");
        assertThatThrownBy(() -> new ClaimHint(5, T0, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("runId");
    }
}
