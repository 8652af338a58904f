package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobPatchTest {
    static final JobSpec RECURRING = new JobDraft("nightly", "shell", Map.of("command", "true"), "0 3 * * *", null,
            "Europe/Berlin", 3, 4, 60, "once", "key-1", "reports", "billing", 2, "skip").validate();
    static final JobSpec ONE_OFF = new JobDraft("once", "shell", Map.of("command", "true"), null,
            Instant.parse("2026-07-01T09:30:00Z"), null, null, null, null, null, null, null, null, null, null,
            "u-1", null).validate();

    static JobPatch patch(JobDraft values, String... given) {
        return new JobPatch(values, Set.of(given));
    }

    static JobDraft draft() {
        return new JobDraft(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null);
    }

    static JobDraft retry(Integer base, Integer max) {
        return new JobDraft(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, base, max);
    }

    @Test
    void retryIsReplacedAsAWholeAndKeptWhenNotGiven() {
        JobSpec own = patch(retry(1, 2), "retry").applyTo(ONE_OFF);
        assertThat(own.retry()).isEqualTo(new io.forgeflow.domain.backoff.RetryOverride(1, 2));

        assertThat(patch(draft(), "priority").applyTo(own).retry()).isEqualTo(own.retry());
        assertThat(patch(retry(30, null), "retry").applyTo(own).retry())
                .isEqualTo(new io.forgeflow.domain.backoff.RetryOverride(30, null));
        assertThat(patch(draft(), "retry").applyTo(own).retry()).as("retry: null").isNull();
        assertThatThrownBy(() -> patch(retry(5, 4), "retry").applyTo(own))
                .isInstanceOfSatisfying(io.forgeflow.domain.error.ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("retry.base_seconds"));
    }

    @Test
    void fieldsNotGivenKeepTheirValuesAndGivenOnesAreReplaced() {
        JobDraft values = new JobDraft("renamed", null, Map.of("command", "echo 2"), "*/5 * * * *", null, "UTC", 1, 7,
                120, "skip", null, "fast", null, 5, "queue_one", null, null);

        JobSpec after = patch(values, "name", "payload", "cron_expr", "timezone", "priority", "max_attempts",
                "timeout_seconds", "catch_up", "queue", "max_concurrent", "overlap").applyTo(RECURRING);

        assertThat(after).isEqualTo(new JobSpec("renamed", "shell", Map.of("command", "echo 2"), "*/5 * * * *", null,
                "UTC", 1, 7, 120, CatchUp.SKIP, "key-1", "fast", "billing", 5, Overlap.QUEUE_ONE, null));
        assertThat(patch(draft()).applyTo(RECURRING)).as("an empty patch changes nothing").isEqualTo(RECURRING);
        assertThat(patch(draft()).applyTo(ONE_OFF)).isEqualTo(ONE_OFF);
    }

    @Test
    void aFieldGivenAsNullTakesItsDefaultOrNone() {
        JobSpec after = patch(draft(), "timezone", "priority", "max_attempts", "timeout_seconds", "catch_up", "queue",
                "concurrency_key", "max_concurrent", "overlap", "payload").applyTo(RECURRING);

        assertThat(after.timezone()).isEqualTo("UTC");
        assertThat(after.priority()).isEqualTo(JobDraft.DEFAULT_PRIORITY);
        assertThat(after.maxAttempts()).isEqualTo(JobDraft.DEFAULT_MAX_ATTEMPTS);
        assertThat(after.timeoutSeconds()).isEqualTo(JobDraft.DEFAULT_TIMEOUT_SECONDS);
        assertThat(after.catchUp()).isEqualTo(CatchUp.SKIP);
        assertThat(after.queue()).isEqualTo(QueueNames.DEFAULT);
        assertThat(after.concurrencyKey()).isNull();
        assertThat(after.maxConcurrent()).isNull();
        assertThat(after.overlap()).isEqualTo(Overlap.ALLOW);
        assertThat(after.payload()).isEmpty();
        assertThat(after.cronExpr()).isEqualTo(RECURRING.cronExpr());
    }

    @Test
    void theSubmissionRulesApplyToTheResult() {
        JobDraft values = new JobDraft(null, null, null, null, null, null, 12, null, null, null, null, null, null,
                null, null, null, null);
        assertThatThrownBy(() -> patch(values, "priority").applyTo(RECURRING)).isInstanceOf(ValidationException.class)
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("priority");
        assertThatThrownBy(() -> patch(draft(), "name").applyTo(RECURRING))
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("name");
        assertThatThrownBy(() -> patch(draft(), "max_concurrent").applyTo(RECURRING)).as("a key needs a limit")
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("max_concurrent");
    }

    @Test
    void fixedFieldsRefuseAnotherValueAndAcceptTheirOwn() {
        JobDraft other = new JobDraft(null, "http", null, null, null, null, null, null, null, null, "key-2", null, null,
                null, null, "u-2", null).withFlow(new Debounce("d-2", 5, null, null), null);
        for (String field : JobPatch.FIXED) {
            assertThatThrownBy(() -> patch(other, field).applyTo(RECURRING.isRecurring() && field.equals("unique_key")
                    ? ONE_OFF : RECURRING))
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining(field + " cannot be changed").hasMessageContaining("submit a new job")
                    .extracting(e -> ((ValidationException) e).field()).isEqualTo(field);
        }
        JobDraft same = new JobDraft(null, "shell", null, null, null, null, null, null, null, null, "key-1", null, null,
                null, null, null, null);
        assertThat(patch(same, "executor", "idempotency_key").applyTo(RECURRING)).isEqualTo(RECURRING);
    }

    @Test
    void aJobKeepsItsKindOfSchedule() {
        JobDraft cron = new JobDraft(null, null, null, "0 * * * *", null, null, null, null, null, null, null, null,
                null, null, null, null, null);
        assertThatThrownBy(() -> patch(cron, "cron_expr").applyTo(ONE_OFF)).hasMessageContaining("cannot become recurring");
        assertThatThrownBy(() -> patch(draft(), "cron_expr").applyTo(RECURRING)).hasMessageContaining("cannot be removed");
        JobDraft at = new JobDraft(null, null, null, null, Instant.parse("2026-08-01T00:00:00Z"), null, null, null,
                null, null, null, null, null, null, null, null, null);
        assertThatThrownBy(() -> patch(at, "run_at").applyTo(RECURRING)).hasMessageContaining("applies to one-off jobs");

        assertThat(patch(at, "run_at").applyTo(ONE_OFF).runAt()).isEqualTo(Instant.parse("2026-08-01T00:00:00Z"));
        assertThat(patch(draft(), "run_at").applyTo(ONE_OFF).runAt()).as("null: run now").isNull();
        assertThat(patch(draft(), "cron_expr").applyTo(ONE_OFF)).as("a one-off without cron stays one").isEqualTo(ONE_OFF);
        assertThat(patch(draft(), "run_at").applyTo(RECURRING)).isEqualTo(RECURRING);
    }

    @Test
    void aScheduleMovesWithTheCronTheZoneOrTheOneOffTime() {
        assertThat(JobPatch.movesSchedule(RECURRING, RECURRING)).isFalse();
        JobSpec otherCron = patch(new JobDraft(null, null, null, "0 4 * * *", null, null, null, null, null, null, null,
                null, null, null, null, null, null), "cron_expr").applyTo(RECURRING);
        assertThat(JobPatch.movesSchedule(RECURRING, otherCron)).isTrue();
        JobSpec otherZone = patch(draft(), "timezone").applyTo(RECURRING);
        assertThat(JobPatch.movesSchedule(RECURRING, otherZone)).isTrue();
        JobSpec now = patch(draft(), "run_at").applyTo(ONE_OFF);
        assertThat(JobPatch.movesSchedule(ONE_OFF, now)).isTrue();
        JobSpec renamed = patch(new JobDraft("x", null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null), "name").applyTo(RECURRING);
        assertThat(JobPatch.movesSchedule(RECURRING, renamed)).isFalse();
    }

    @Test
    void onlyTheFieldsOfAJobCanBeGiven() {
        assertThatThrownBy(() -> patch(draft(), "status")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("status");
        assertThat(patch(draft(), "name").gives("name")).isTrue();
        assertThat(patch(draft(), "name").gives("queue")).isFalse();
    }
}
