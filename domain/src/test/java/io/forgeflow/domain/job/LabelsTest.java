package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LabelsTest {
    static JobDraft withLabels(Map<String, ?> labels) {
        return new JobDraft("j", "shell", Map.of("command", "true"), null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, labels);
    }

    @Test
    void labelsAreKeptInKeyOrderAndNoneIsEmpty() {
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("team", "billing");
        given.put("app.tier", "");
        given.put("a-b_c.9", "x".repeat(200));

        JobSpec spec = withLabels(given).validate();

        assertThat(spec.labels()).containsExactly(Map.entry("a-b_c.9", "x".repeat(200)), Map.entry("app.tier", ""),
                Map.entry("team", "billing"));
        assertThat(withLabels(null).validate().labels()).isEmpty();
        assertThat(withLabels(Map.of()).validate().labels()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            Team       | labels
            a b        | labels
            ä          | labels
            a/b        | labels
            """)
    void aKeyOutsideTheAlphabetIsRefusedNamingLabels(String key, String field) {
        assertThatThrownBy(() -> withLabels(Map.of(key, "v")).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).contains("labels has a bad key '" + key + "': keys are 1 to 63 characters of a-z");
                });
    }

    @Test
    void keyLengthValueLengthCountAndTypesAreChecked() {
        assertThat(withLabels(Map.of("k".repeat(63), "v")).validate().labels()).hasSize(1);
        assertThatThrownBy(() -> withLabels(Map.of("k".repeat(64), "v")).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("labels"));
        assertThatThrownBy(() -> withLabels(Map.of("", "v")).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("labels"));
        assertThatThrownBy(() -> withLabels(Map.of("team", "v".repeat(201))).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("labels.team");
                    assertThat(e.getMessage()).isEqualTo("labels.team must be at most 200 characters, was 201");
                });
        assertThatThrownBy(() -> withLabels(Map.of("team", "a\nb")).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("labels.team"));
        for (Object notAString : List.of(5, true, Map.of(), List.of("a"))) {
            assertThatThrownBy(() -> withLabels(Map.of("team", notAString)).validate())
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo("labels.team");
                        assertThat(e.getMessage()).startsWith("labels.team must be a string");
                    });
        }
        Map<String, Object> nullValue = new HashMap<>();
        nullValue.put("team", null);
        assertThatThrownBy(() -> withLabels(nullValue).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("labels.team"));

        Map<String, String> twenty = new HashMap<>();
        IntStream.range(0, 20).forEach(i -> twenty.put("k" + i, "v"));
        assertThat(withLabels(twenty).validate().labels()).hasSize(20);
        twenty.put("k20", "v");
        assertThatThrownBy(() -> withLabels(twenty).validate())
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("labels");
                    assertThat(e.getMessage()).startsWith("labels may hold at most 20 entries, had 21");
                });
    }

    @Test
    void aPatchReplacesTheLabelsWholeOrClearsThemWithNullAndLeavesThemAloneWhenNotGiven() {
        JobSpec labelled = withLabels(Map.of("team", "billing", "env", "prod")).validate();

        JobSpec replaced = new JobPatch(withLabels(Map.of("team", "ops")), Set.of("labels")).applyTo(labelled);
        JobSpec cleared = new JobPatch(withLabels(null), Set.of("labels")).applyTo(labelled);
        JobSpec untouched = new JobPatch(withLabels(Map.of("x", "y")), Set.of("name")).applyTo(labelled);

        assertThat(replaced.labels()).containsExactly(Map.entry("team", "ops"));
        assertThat(cleared.labels()).isEmpty();
        assertThat(untouched.labels()).isEqualTo(labelled.labels());
        assertThatThrownBy(() -> new JobPatch(withLabels(Map.of("BAD", "v")), Set.of("labels")).applyTo(labelled))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("labels"));
    }

    @Test
    void anIdempotentReplayMustRepeatTheLabels() {
        JobSpec a = withLabels(Map.of("team", "billing")).validate();
        assertThat(a.sameRequestAs(withLabels(Map.of("team", "billing")).validate())).isTrue();
        assertThat(a.sameRequestAs(withLabels(Map.of("team", "ops")).validate())).isFalse();
        assertThat(a.sameRequestAs(withLabels(null).validate())).isFalse();
    }
}
