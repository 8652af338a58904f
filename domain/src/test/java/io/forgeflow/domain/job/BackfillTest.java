package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackfillTest {
    static final Instant FROM = Instant.parse("2026-04-01T00:00:00Z");
    static final Instant TO = Instant.parse("2026-04-08T00:00:00Z");

    static void refused(Runnable call, String field, String text) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ValidationException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).contains(text);
        });
    }

    @Test
    void defaultsAreAllowAndOnlyMissing() {
        Backfill b = Backfill.of(FROM, TO, null, null);
        assertThat(b).isEqualTo(new Backfill(FROM, TO, "allow", true));
        assertThat(b.oneAtATime()).isFalse();
        assertThat(Backfill.of(FROM, FROM, "allow", true).to()).as("a single instant").isEqualTo(FROM);
    }

    @Test
    void skipAndQueueOneRunOneAtATimeWhateverTheirCase() {
        assertThat(Backfill.of(FROM, TO, "skip", null).oneAtATime()).isTrue();
        assertThat(Backfill.of(FROM, TO, "QUEUE_ONE", null).overlap()).isEqualTo("queue_one");
        assertThat(Backfill.of(FROM, TO, "Queue_One", true).oneAtATime()).isTrue();
    }

    @Test
    void everyBadPartIsRefusedNamingIt() {
        refused(() -> Backfill.of(null, TO, null, null), "from", "from is required");
        refused(() -> Backfill.of(FROM, null, null, null), "to", "to is required");
        refused(() -> Backfill.of(TO, FROM, null, null), "to", "must not be before from");
        refused(() -> Backfill.of(FROM, TO, "cancel_running", null), "overlap", "was 'cancel_running'");
        refused(() -> Backfill.of(FROM, TO, "x".repeat(50), null), "overlap", "x".repeat(40) + "…'");
        refused(() -> Backfill.of(FROM, TO, "y".repeat(40), null), "overlap", "y".repeat(40) + "'");
        refused(() -> Backfill.of(FROM, TO, null, false), "only_missing", "requeue");
    }

    @Test
    void tooManyTicksNamesToAndTheFirstTickOverTheLimit() {
        ValidationException e = Backfill.of(FROM, TO, null, null).tooManyTicks(Instant.parse("2027-02-21T16:00:00Z"));
        assertThat(e.field()).isEqualTo("to");
        assertThat(e.getMessage()).contains("more than 10000 ticks", "the 10001th is 2027-02-21T16:00:00Z",
                "move to earlier");
        assertThat(Backfill.MAX_TICKS).isEqualTo(10_000);
    }

    @Test
    void theRecordRefusesMissingParts() {
        assertThatThrownBy(() -> new Backfill(null, TO, "allow", true)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Backfill(FROM, null, "allow", true)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Backfill(FROM, TO, null, true)).isInstanceOf(NullPointerException.class);
    }
}
