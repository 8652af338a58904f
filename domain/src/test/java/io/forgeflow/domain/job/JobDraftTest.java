package io.forgeflow.domain.job;

import io.forgeflow.domain.backoff.RetryOverride;
import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobDraftTest {
    static final JobDraft VALID = new JobDraft("nightly", "shell", Map.of("command", "echo hi"), null, null, null,
            null, null, null, null, null);

    @Test
    void defaultsFollowTheApiContract() {
        JobSpec spec = VALID.validate();
        assertThat(spec.priority()).isEqualTo(5);
        assertThat(spec.maxAttempts()).isEqualTo(3);
        assertThat(spec.timeoutSeconds()).isEqualTo(300);
        assertThat(spec.timezone()).isEqualTo("UTC");
        assertThat(spec.catchUp()).isEqualTo(CatchUp.SKIP);
        assertThat(spec.isRecurring()).isFalse();
        assertThat(spec.queue()).isEqualTo(QueueNames.DEFAULT).isEqualTo("default");
        assertThat(spec.concurrencyKey()).isNull();
        assertThat(spec.maxConcurrent()).isNull();
        assertThat(spec.overlap()).isEqualTo(Overlap.ALLOW);
        assertThat(spec.effectiveConcurrencyKey("j1")).as("no limit, no key").isNull();
    }

    @Nested
    class Retry {
        JobDraft with(Integer base, Integer max) {
            Map<String, Object> f = fields(VALID);
            f.put("retry.base_seconds", base);
            f.put("retry.max_seconds", max);
            return draft(f);
        }

        void refused(JobDraft d, String field, String message) {
            assertThatThrownBy(d::validate).isInstanceOfSatisfying(ValidationException.class, e -> {
                assertThat(e.field()).isEqualTo(field);
                assertThat(e.getMessage()).contains(message);
            });
        }

        @Test
        void noneIsTheNodesDefaultsAndPartsAreKept() {
            assertThat(VALID.validate().retry()).isNull();
            assertThat(with(1, 2).validate().retry()).isEqualTo(new RetryOverride(1, 2));
            assertThat(with(1, 1).validate().retry()).isEqualTo(new RetryOverride(1, 1));
            assertThat(with(null, 86_400).validate().retry()).isEqualTo(new RetryOverride(null, 86_400));
            assertThat(with(86_400, null).validate().retry()).isEqualTo(new RetryOverride(86_400, null));
        }

        @Test
        void outOfRangeOrABaseAboveTheCapIsRefusedNamingThePart() {
            refused(with(0, null), "retry.base_seconds", "retry.base_seconds must be between 1 and 86400, was 0");
            refused(with(86_401, null), "retry.base_seconds", "between 1 and 86400");
            refused(with(null, 0), "retry.max_seconds", "retry.max_seconds must be between 1 and 86400, was 0");
            refused(with(null, 86_401), "retry.max_seconds", "between 1 and 86400");
            refused(with(3, 2), "retry.base_seconds", "retry.base_seconds (3) must be at most retry.max_seconds (2)");
        }

        @Test
        void twoSubmissionsAreTheSameRequestOnlyWithTheSamePolicy() {
            assertThat(with(1, 2).validate().sameRequestAs(with(1, 2).validate())).isTrue();
            assertThat(with(1, 2).validate().sameRequestAs(with(1, 3).validate())).isFalse();
            assertThat(with(1, 2).validate().sameRequestAs(VALID.validate())).isFalse();
        }
    }

    @Nested
    class Sequences {
        JobDraft with(String key, String onDead, String cron) {
            return new JobDraft("n", "shell", Map.of("command", "true"), cron, null, null, null, null, null, null,
                    null, null, null, null, null, null, null, null, null, null, key, onDead);
        }

        void refused(JobDraft d, String field, String message) {
            assertThatThrownBy(d::validate).isInstanceOfSatisfying(ValidationException.class, e -> {
                assertThat(e.field()).isEqualTo(field);
                assertThat(e.getMessage()).contains(message);
            });
        }

        @Test
        void aKeyIsKeptAndBlockIsTheDefault() {
            JobSpec spec = with("order-42", null, null).validate();
            assertThat(spec.sequenceKey()).isEqualTo("order-42");
            assertThat(spec.sequenceOnDead()).isEqualTo("block");
            assertThat(with("order-42", "continue", null).validate().sequenceOnDead()).isEqualTo("continue");
            assertThat(with("order-42", "block", null).validate().sequenceOnDead()).isEqualTo("block");
            assertThat(with("x".repeat(200), null, null).validate().sequenceKey()).hasSize(200);
            JobSpec none = with(null, null, null).validate();
            assertThat(none.sequenceKey()).isNull();
            assertThat(none.sequenceOnDead()).isNull();
            assertThat(VALID.validate().sequenceKey()).isNull();
        }

        @Test
        void badValuesAreRefusedNamingTheField() {
            refused(with("", null, null), "sequence_key", "1 to 200 characters");
            refused(with("  ", null, null), "sequence_key", "not blank");
            refused(with("x".repeat(201), null, null), "sequence_key", "1 to 200");
            refused(with("a\nb", null, null), "sequence_key", "control characters");
            refused(with("k", "skip", null), "on_dead", "was 'skip'");
            refused(with(null, "block", null), "on_dead", "needs sequence_key");
            refused(with(null, "skip", null), "on_dead", "must be");
            refused(with("k", null, "*/5 * * * *"), "sequence_key", "one-off jobs only");
        }

        @Test
        void theSequenceIsPartOfTheRequestAndGoesWithItsOnDead() {
            assertThat(with("k", null, null).validate().sameRequestAs(with("k", "block", null).validate())).isTrue();
            assertThat(with("k", null, null).validate().sameRequestAs(with("k", "continue", null).validate())).isFalse();
            assertThat(with("k", null, null).validate().sameRequestAs(with("j", null, null).validate())).isFalse();
            assertThat(with("k", null, null).validate().sameRequestAs(with(null, null, null).validate())).isFalse();
            JobSpec spec = with("k", null, null).validate();
            assertThatThrownBy(() -> new JobSpec("n", "shell", Map.of(), null, null, "UTC", 5, 3, 60, CatchUp.SKIP,
                    null, null, null, null, null, null, null, Map.of(), "k", null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("goes with its on_dead");
            assertThatThrownBy(() -> new JobSpec("n", "shell", Map.of(), null, null, "UTC", 5, 3, 60, CatchUp.SKIP,
                    null, null, null, null, null, null, null, Map.of(), null, "block"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("goes with its on_dead");
            assertThatThrownBy(() -> new JobSpec("n", "shell", Map.of(), "@daily", null, "UTC", 5, 3, 60, CatchUp.SKIP,
                    null, null, null, null, null, null, null, Map.of(), "k", "block"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one-off job");
            assertThat(spec.sequenceKey()).isEqualTo("k");
        }
    }

    @Nested
    class UniqueKeys {
        JobDraft with(String key, String onConflict) {
            Map<String, Object> f = fields(VALID);
            f.put("unique_key", key);
            f.put("unique_on_conflict", onConflict);
            return draft(f);
        }

        void refused(JobDraft d, String field, String message) {
            assertThatThrownBy(d::validate).isInstanceOfSatisfying(ValidationException.class, e -> {
                assertThat(e.field()).isEqualTo(field);
                assertThat(e.getMessage()).contains(message);
            });
        }

        @Test
        void aKeyIsKeptAndRejectIsTheDefault() {
            assertThat(with("sync-customer-42", null).validate().uniqueKey()).isEqualTo("sync-customer-42");
            assertThat(with("sync-customer-42", null).returnsExistingOnUniqueConflict()).isFalse();
            assertThat(with("sync-customer-42", "reject").returnsExistingOnUniqueConflict()).isFalse();
            assertThat(with("sync-customer-42", "return_existing").returnsExistingOnUniqueConflict()).isTrue();
            assertThat(with("k", "return_existing").validate().uniqueKey()).isEqualTo("k");
            assertThat(with("x".repeat(200), null).validate().uniqueKey()).hasSize(200);
            assertThat(VALID.validate().uniqueKey()).isNull();
        }

        @Test
        void badKeysAreRefusedNamingTheField() {
            refused(with("", null), "unique_key", "1 to 200 characters");
            refused(with("   ", null), "unique_key", "not blank");
            refused(with("x".repeat(201), null), "unique_key", "was 201");
            refused(with("a\nb", null), "unique_key", "control characters");
            refused(with("a\u0000b", null), "unique_key", "NUL");
        }

        @Test
        void theConflictPolicyNeedsAKeyAndAKnownValue() {
            refused(with("k", "merge"), "unique_on_conflict", "was 'merge'");
            refused(with(null, "reject"), "unique_on_conflict", "needs unique_key");
            refused(with(null, "merge"), "unique_on_conflict", "must be");
        }

        @Test
        void aRecurringJobCannotHaveAKey() {
            Map<String, Object> f = fields(VALID);
            f.put("unique_key", "k");
            f.put("cron_expr", "* * * * *");
            refused(draft(f), "unique_key", "one-off jobs only");
            assertThatThrownBy(() -> new JobSpec("n", "shell", Map.of(), "* * * * *", null, "UTC", 5, 3, 300,
                    CatchUp.SKIP, null, "default", null, null, Overlap.ALLOW, "k"))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void theKeyIsPartOfTheRequestForIdempotentReplays() {
            JobSpec a = with("k1", null).validate();
            assertThat(a.sameRequestAs(with("k1", "return_existing").validate())).isTrue();
            assertThat(a.sameRequestAs(with("k2", null).validate())).isFalse();
            assertThat(a.sameRequestAs(VALID.validate())).isFalse();
        }
    }

    @Nested
    class QueuesAndLimits {
        @Test
        void queueKeyLimitAndOverlapAreKept() {
            Map<String, Object> f = fields(VALID);
            f.put("cron_expr", "*/5 * * * *");
            f.put("queue", "reports.v2_eu-1");
            f.put("concurrency_key", "billing");
            f.put("max_concurrent", 2);
            f.put("overlap", "queue_one");

            JobSpec spec = draft(f).validate();

            assertThat(spec.queue()).isEqualTo("reports.v2_eu-1");
            assertThat(spec.concurrencyKey()).isEqualTo("billing");
            assertThat(spec.maxConcurrent()).isEqualTo(2);
            assertThat(spec.overlap()).isEqualTo(Overlap.QUEUE_ONE);
            assertThat(spec.effectiveConcurrencyKey("j1")).as("the key given, whatever the job").isEqualTo("billing");
        }

        @Test
        void maxConcurrentAloneLimitsTheJobsOwnRunsUnderAKeyOfItsOwn() {
            JobSpec spec = draft(with(fields(VALID), "max_concurrent", 1)).validate();

            assertThat(spec.concurrencyKey()).isNull();
            assertThat(spec.maxConcurrent()).isEqualTo(1);
            assertThat(spec.effectiveConcurrencyKey("0190-abc")).isEqualTo("job:0190-abc");
        }

        @ParameterizedTest
        @ValueSource(strings = {"allow", "skip", "queue_one", "cancel_running"})
        void everyOverlapPolicyIsAcceptedForARecurringJob(String wire) {
            JobSpec spec = draft(with(with(fields(VALID), "cron_expr", "@hourly"), "overlap", wire)).validate();

            assertThat(spec.overlap().wireName()).isEqualTo(wire);
        }

        @Test
        void overlapAllowIsAcceptedForAOneOffJobSinceItIsTheDefault() {
            assertThat(draft(with(fields(VALID), "overlap", "allow")).validate().overlap()).isEqualTo(Overlap.ALLOW);
            assertThat(draft(with(with(fields(VALID), "run_at", Instant.EPOCH), "overlap", "allow")).validate().overlap())
                    .isEqualTo(Overlap.ALLOW);
        }

        @Test
        void valuesAtTheLimitsAreAccepted() {
            Map<String, Object> f = fields(VALID);
            f.put("queue", "Q".repeat(QueueNames.MAX_LENGTH));
            f.put("concurrency_key", "k".repeat(QueueNames.MAX_KEY_LENGTH));
            f.put("max_concurrent", JobDraft.MAX_CONCURRENT_LIMIT);
            JobSpec high = draft(f).validate();
            assertThat(high.queue()).hasSize(100);
            assertThat(high.concurrencyKey()).hasSize(200);
            assertThat(high.maxConcurrent()).isEqualTo(10_000);

            f.put("queue", "0");
            f.put("concurrency_key", "k");
            f.put("max_concurrent", 1);
            JobSpec low = draft(f).validate();
            assertThat(low.queue()).isEqualTo("0");
            assertThat(low.maxConcurrent()).isEqualTo(1);
        }

        @Test
        void aKeyThatMerelyContainsJobColonIsNotReserved() {
            Map<String, Object> f = with(with(fields(VALID), "concurrency_key", "my-job:1"), "max_concurrent", 3);

            assertThat(draft(f).validate().concurrencyKey()).isEqualTo("my-job:1");
        }

        @Test
        void aKeyWithControlCharactersIsRefusedOnConcurrencyKey() {
            for (String bad : List.of("bill\ning", "tab\tkey", "esc\u001b[31m")) {
                Map<String, Object> f = with(with(fields(VALID), "concurrency_key", bad), "max_concurrent", 2);
                assertThatThrownBy(() -> draft(f).validate()).isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("concurrency_key");
                    assertThat(e.getMessage()).contains("control characters");
                });
            }
        }

        @Test
        void aRefusedQueueNameIsQuotedCutAndFreeOfNul() {
            assertThatThrownBy(() -> draft(with(fields(VALID), "queue", "q".repeat(61) + "!")).validate())
                    .hasMessageContaining("'" + "q".repeat(60) + "…'");
            assertThatThrownBy(() -> draft(with(fields(VALID), "queue", "a\u0000b")).validate())
                    .hasMessageContaining("'a?b'").hasMessageContaining("e.g. \"reports\"");
        }

        @Test
        void theReplayOfARequestMustMatchItsQueueKeyLimitAndOverlap() {
            Map<String, Object> base = fields(VALID);
            base.put("cron_expr", "@hourly");
            base.put("idempotency_key", "k");
            base.put("queue", "reports");
            base.put("concurrency_key", "billing");
            base.put("max_concurrent", 2);
            base.put("overlap", "skip");
            JobSpec original = draft(base).validate();

            assertThat(original.sameRequestAs(draft(new HashMap<>(base)).validate())).isTrue();
            assertThat(original.sameRequestAs(draft(with(base, "queue", "webhooks")).validate())).as("queue").isFalse();
            assertThat(original.sameRequestAs(draft(with(base, "concurrency_key", "other")).validate())).as("key").isFalse();
            assertThat(original.sameRequestAs(draft(with(base, "max_concurrent", 3)).validate())).as("limit").isFalse();
            assertThat(original.sameRequestAs(draft(with(base, "overlap", "allow")).validate())).as("overlap").isFalse();
            Map<String, Object> keyless = with(base, "concurrency_key", null);
            assertThat(original.sameRequestAs(draft(keyless).validate())).as("no key").isFalse();
            assertThat(draft(with(base, "queue", null)).validate().sameRequestAs(draft(with(base, "queue", "default"))
                    .validate())).as("the default queue, named or not").isTrue();
        }
    }

    @Test
    void everyFieldIsKeptWhenValid() {
        Instant at = Instant.parse("2026-07-01T09:30:00Z");
        JobSpec spec = new JobDraft("n", "http", Map.of("url", "http://x"), null, at, "Europe/Berlin", 1, 100, 86400,
                "once", "key-1").validate();
        assertThat(spec).isEqualTo(new JobSpec("n", "http", Map.of("url", "http://x"), null, at, "Europe/Berlin", 1, 100,
                86400, CatchUp.ONCE, "key-1"));
        assertThat(new JobDraft("n", "shell", null, " */5 * * * * ", null, null, 9, 1, 1, "skip", null).validate().cronExpr())
                .isEqualTo("*/5 * * * *");
    }

    static Stream<Arguments> invalid() {
        String nul = "a\u0000b";
        return Stream.of(
                bad("name", d -> with(d, "name", null), "name is required"),
                bad("name", d -> with(d, "name", "   "), "must not be blank"),
                bad("name", d -> with(d, "name", "x".repeat(201)), "at most 200"),
                bad("name", d -> with(d, "name", nul), "NUL"),
                bad("name", d -> with(d, "name", "\u0000leading"), "NUL"),
                bad("executor", d -> with(d, "executor", null), "executor is required"),
                bad("executor", d -> with(d, "executor", ""), "blank"),
                bad("cron_expr", d -> with(d, "cron_expr", "  "), "must not be empty"),
                bad("cron_expr", d -> with(d, "cron_expr", nul), "NUL"),
                bad("run_at", d -> with(with(d, "cron_expr", "* * * * *"), "run_at", Instant.EPOCH), "not both"),
                bad("timezone", d -> with(d, "timezone", "Mars/Olympus"), "IANA"),
                bad("timezone", d -> with(d, "timezone", ""), "IANA"),
                bad("timezone", d -> with(d, "timezone", nul), "NUL"),
                bad("priority", d -> with(d, "priority", 0), "between 1 and 9"),
                bad("priority", d -> with(d, "priority", 10), "between 1 and 9"),
                bad("max_attempts", d -> with(d, "max_attempts", 0), "between 1 and 100"),
                bad("max_attempts", d -> with(d, "max_attempts", 101), "between 1 and 100"),
                bad("timeout_seconds", d -> with(d, "timeout_seconds", 0), "between 1 and 86400"),
                bad("timeout_seconds", d -> with(d, "timeout_seconds", 86401), "between 1 and 86400"),
                bad("catch_up", d -> with(d, "catch_up", "always"), "skip\" or \"once"),
                bad("idempotency_key", d -> with(d, "idempotency_key", ""), "1 to 200"),
                bad("idempotency_key", d -> with(d, "idempotency_key", "k".repeat(201)), "1 to 200"),
                bad("idempotency_key", d -> with(d, "idempotency_key", nul), "NUL"),
                bad("idempotency_key", d -> with(d, "idempotency_key", "\u001forder"), "U+001F"),
                bad("idempotency_key", d -> with(d, "idempotency_key", "order\u001f42"), "U+001F"),
                bad("payload.command", d -> with(d, "payload", Map.of("command", nul)), "NUL"),
                bad("payload", d -> with(d, "payload", nested(40)), "deeper"),
                bad("payload", d -> with(d, "payload", nested(JobDraft.MAX_PAYLOAD_DEPTH + 1)), "deeper"),
                bad("payload", d -> with(d, "payload", Map.of("k", nestedLists(JobDraft.MAX_PAYLOAD_DEPTH))), "deeper"),
                // queues, concurrency limits, overlap
                bad("queue", d -> with(d, "queue", ""), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", " reports"), "starting with a letter or digit"),
                bad("queue", d -> with(d, "queue", "reports "), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", "-reports"), "starting with a letter or digit"),
                bad("queue", d -> with(d, "queue", ".hidden"), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", "_x"), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", "a/b"), "letters, digits, '.', '_' or '-'"),
                bad("queue", d -> with(d, "queue", "a b"), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", "a*"), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", "a,b"), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", "zürich"), "is not a valid queue name"),
                bad("queue", d -> with(d, "queue", "q".repeat(101)), "1 to 100"),
                bad("queue", d -> with(d, "queue", nul), "is not a valid queue name"),
                bad("concurrency_key", d -> with(with(d, "concurrency_key", ""), "max_concurrent", 2), "1 to 200"),
                bad("concurrency_key", d -> with(with(d, "concurrency_key", "   "), "max_concurrent", 2), "not blank"),
                bad("concurrency_key", d -> with(with(d, "concurrency_key", "k".repeat(201)), "max_concurrent", 2),
                        "1 to 200"),
                bad("concurrency_key", d -> with(with(d, "concurrency_key", nul), "max_concurrent", 2), "NUL"),
                bad("concurrency_key", d -> with(with(d, "concurrency_key", "job:123"), "max_concurrent", 2),
                        "must not start with \"job:\""),
                bad("concurrency_key", d -> with(d, "concurrency_key", "job:"), "reserved"),
                bad("max_concurrent", d -> with(d, "concurrency_key", "billing"), "max_concurrent is required with "
                        + "concurrency_key"),
                bad("max_concurrent", d -> with(d, "max_concurrent", 0), "between 1 and 10000"),
                bad("max_concurrent", d -> with(d, "max_concurrent", -1), "between 1 and 10000"),
                bad("max_concurrent", d -> with(d, "max_concurrent", 10_001), "between 1 and 10000"),
                bad("max_concurrent", d -> with(d, "max_concurrent", Integer.MIN_VALUE), "between 1 and 10000"),
                bad("max_concurrent", d -> with(with(d, "concurrency_key", "billing"), "max_concurrent", 0),
                        "between 1 and 10000"),
                bad("overlap", d -> with(with(d, "cron_expr", "* * * * *"), "overlap", "never"),
                        "\"allow\", \"skip\", \"queue_one\" or \"cancel_running\", was 'never'"),
                bad("overlap", d -> with(with(d, "cron_expr", "* * * * *"), "overlap", "SKIP"), "was 'SKIP'"),
                bad("overlap", d -> with(with(d, "cron_expr", "* * * * *"), "overlap", "queue-one"), "was 'queue-one'"),
                bad("overlap", d -> with(with(d, "cron_expr", "* * * * *"), "overlap", ""), "was ''"),
                bad("overlap", d -> with(d, "overlap", "skip"), "recurring jobs only"),
                bad("overlap", d -> with(d, "overlap", "queue_one"), "recurring jobs only"),
                bad("overlap", d -> with(d, "overlap", "cancel_running"), "recurring jobs only"),
                bad("overlap", d -> with(with(d, "run_at", Instant.EPOCH), "overlap", "skip"), "give cron_expr"));
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("invalid")
    void invalidFieldsAreRefusedNamingTheField(String field, UnaryOperator<Map<String, Object>> change, String message) {
        JobDraft draft = draft(change.apply(fields(VALID)));
        assertThatThrownBy(draft::validate)
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageContaining(message);
    }

    @Test
    void valuesAtTheLimitsAreAccepted() {
        Map<String, Object> atLimits = fields(VALID);
        atLimits.put("name", "n".repeat(JobDraft.MAX_NAME_LENGTH));
        atLimits.put("idempotency_key", "k".repeat(JobDraft.MAX_IDEMPOTENCY_KEY_LENGTH));
        atLimits.put("payload", nested(JobDraft.MAX_PAYLOAD_DEPTH));
        JobSpec spec = draft(atLimits).validate();
        assertThat(spec.name()).hasSize(200);
        assertThat(spec.idempotencyKey()).hasSize(200);
    }

    @Test
    void aRefusedValueIsQuotedInTheMessageAndLongOnesAreCut() {
        String sixty = "Z".repeat(60);
        assertThatThrownBy(() -> draft(with(fields(VALID), "timezone", sixty)).validate())
                .hasMessageContaining("'" + sixty + "'");
        assertThatThrownBy(() -> draft(with(fields(VALID), "timezone", sixty + "Z")).validate())
                .hasMessageContaining("'" + sixty + "…'");
        assertThatThrownBy(() -> draft(with(fields(VALID), "catch_up", "al\u0000ways")).validate())
                .hasMessageContaining("was 'al?ways'");
    }

    @Test
    void nulInsideNestedPayloadKeysAndListsIsRefused() {
        Map<String, Object> payload = Map.of("headers", Map.of("a\u0000", "x"));
        assertThatThrownBy(() -> draft(with(fields(VALID), "payload", payload)).validate())
                .isInstanceOf(ValidationException.class);
        Map<String, Object> list = Map.of("body", List.of("ok", "b\u0000"));
        assertThatThrownBy(() -> draft(with(fields(VALID), "payload", list)).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("payload.body[1]"));
    }

    @Test
    void aReplayMatchesWhenPayloadNumbersAndKeyOrderDifferOnlyInForm() {
        JobSpec a = new JobDraft("n", "http", Map.of("body", Map.of("n", 100, "x", List.of(1.5, 2))), null, null, null,
                null, null, null, null, "k").validate();
        JobSpec b = new JobDraft("n", "http", Map.of("body", Map.of("x", List.of(new java.math.BigDecimal("1.50"), 2L),
                "n", 100.0)), null, null, null, null, null, null, null, "k").validate();
        JobSpec c = new JobDraft("n", "http", Map.of("body", Map.of("n", 101, "x", List.of(1.5, 2))), null, null, null,
                null, null, null, null, "k").validate();
        JobSpec d = new JobDraft("n", "http", Map.of("body", Map.of("n", 100, "x", List.of(1.5, 2))), null, null, null,
                4, null, null, null, "k").validate();
        assertThat(a.sameRequestAs(b)).isTrue();
        assertThat(a.sameRequestAs(c)).isFalse();
        assertThat(a.sameRequestAs(d)).isFalse();
        assertThat(a.sameRequestAs(null)).isFalse();
    }

    static Arguments bad(String field, UnaryOperator<Map<String, Object>> change, String message) {
        return Arguments.of(field, change, message);
    }

    static Map<String, Object> nested(int depth) {
        Map<String, Object> m = new HashMap<>();
        Map<String, Object> cur = m;
        for (int i = 0; i < depth; i++) {
            Map<String, Object> next = new HashMap<>();
            cur.put("k", next);
            cur = next;
        }
        return m;
    }

    /** A list of lists {@code depth} deep around one string. */
    static Object nestedLists(int depth) {
        Object value = "leaf";
        for (int i = 0; i < depth; i++) {
            value = List.of(value);
        }
        return value;
    }

    static Map<String, Object> with(Map<String, Object> m, String k, Object v) {
        Map<String, Object> copy = new HashMap<>(m);
        copy.put(k, v);
        return copy;
    }

    static Map<String, Object> fields(JobDraft d) {
        Map<String, Object> m = new HashMap<>();
        m.put("name", d.name());
        m.put("executor", d.executor());
        m.put("payload", d.payload());
        return m;
    }

    @SuppressWarnings("unchecked")
    static JobDraft draft(Map<String, Object> m) {
        return new JobDraft((String) m.get("name"), (String) m.get("executor"), (Map<String, Object>) m.get("payload"),
                (String) m.get("cron_expr"), (Instant) m.get("run_at"), (String) m.get("timezone"),
                (Integer) m.get("priority"), (Integer) m.get("max_attempts"), (Integer) m.get("timeout_seconds"),
                (String) m.get("catch_up"), (String) m.get("idempotency_key"), (String) m.get("queue"),
                (String) m.get("concurrency_key"), (Integer) m.get("max_concurrent"), (String) m.get("overlap"),
                (String) m.get("unique_key"), (String) m.get("unique_on_conflict"),
                (Integer) m.get("retry.base_seconds"), (Integer) m.get("retry.max_seconds"));
    }

    @Test
    void aCopyWithAnotherPayloadKeepsEveryOtherField() {
        JobDraft full = new JobDraft("n", "shell", Map.of("command", "a"), "0 * * * *", null, "UTC", 3, 4, 60, "once",
                null, "q", "k", 2, "skip", null, null, 1, 9, Map.of("team", "x"),
                new ScheduleControls(null, null, 5, 10, 3), null, null, new Notify("https://h.example.com/", null));

        JobDraft copy = full.withPayload(Map.of("command", "b"));

        assertThat(copy.payload()).isEqualTo(Map.of("command", "b"));
        assertThat(copy).usingRecursiveComparison().ignoringFields("payload").isEqualTo(full);
        assertThat(JobDraft.oneOff("w", "noop", Map.of("i", 1))).isEqualTo(new JobDraft("w", "noop", Map.of("i", 1),
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null));
    }
}
