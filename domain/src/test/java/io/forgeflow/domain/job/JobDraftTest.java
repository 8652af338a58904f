package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
                bad("payload.command", d -> with(d, "payload", Map.of("command", nul)), "NUL"),
                bad("payload", d -> with(d, "payload", nested(40)), "deeper"),
                bad("payload", d -> with(d, "payload", nested(JobDraft.MAX_PAYLOAD_DEPTH + 1)), "deeper"),
                bad("payload", d -> with(d, "payload", Map.of("k", nestedLists(JobDraft.MAX_PAYLOAD_DEPTH))), "deeper"));
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
                (String) m.get("catch_up"), (String) m.get("idempotency_key"));
    }
}
