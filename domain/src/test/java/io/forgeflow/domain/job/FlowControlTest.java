package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FlowControlTest {

    static JobDraft oneOff() {
        return JobDraft.oneOff("n", "shell", Map.of("command", "true"));
    }

    static String fieldOf(Runnable r) {
        try {
            r.run();
        } catch (ValidationException e) {
            return e.field();
        }
        throw new AssertionError("no ValidationException");
    }

    @Test
    void debounceDefaultsToTrailingWithTenPeriodsOfMaxWaitCappedAtAWeek() {
        assertThat(new Debounce("k", 30, null, null).validate()).isEqualTo(new Debounce("k", 30, 300, "trailing"));
        assertThat(new Debounce("k", 86_400, null, null).validate().maxWaitSeconds()).isEqualTo(604_800);
        assertThat(new Debounce("k", 5, null, "leading").validate()).isEqualTo(new Debounce("k", 5, null, "leading"));
        assertThat(new Debounce("k", 5, 5, "trailing").validate().maxWaitSeconds()).isEqualTo(5);
    }

    @ParameterizedTest
    @CsvSource(nullValues = "NULL", value = {
            "NULL, 5, NULL, NULL, debounce.key",
            "' ', 5, NULL, NULL, debounce.key",
            "k, NULL, NULL, NULL, debounce.period_seconds",
            "k, 0, NULL, NULL, debounce.period_seconds",
            "k, 86401, NULL, NULL, debounce.period_seconds",
            "k, 10, 9, NULL, debounce.max_wait_seconds",
            "k, 10, 604801, NULL, debounce.max_wait_seconds",
            "k, 10, 20, leading, debounce.max_wait_seconds",
            "k, 10, NULL, middle, debounce.edge"})
    void everyPartOfADebounceOutOfRangeIsNamed(String key, Integer period, Integer wait, String edge, String field) {
        assertThat(fieldOf(() -> new Debounce(key, period, wait, edge).validate())).isEqualTo(field);
    }

    @ParameterizedTest
    @CsvSource(nullValues = "NULL", value = {
            "NULL, 5, 2, throttle.key",
            "k, NULL, 2, throttle.count",
            "k, 0, 2, throttle.count",
            "k, 100001, 2, throttle.count",
            "k, 5, NULL, throttle.per_seconds",
            "k, 5, 0, throttle.per_seconds",
            "k, 5, 86401, throttle.per_seconds"})
    void everyPartOfAThrottleOutOfRangeIsNamed(String key, Integer count, Integer per, String field) {
        assertThat(fieldOf(() -> new Throttle(key, count, per).validate())).isEqualTo(field);
    }

    @Test
    void aDebouncesEdgeSaysWhetherTheFirstRunsAtOnceAndABadOneIsShownPrintable() {
        assertThat(new Debounce("k", 5, null, "leading").validate().leading()).isTrue();
        assertThat(new Debounce("k", 5, null, null).validate().leading()).isFalse();
        String sixty = "e".repeat(59) + "\0";
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Debounce("k", 5, null, sixty).validate())
                .hasMessageEndingWith("was '" + "e".repeat(59) + "?'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Debounce("k", 5, null, "f".repeat(61)).validate())
                .hasMessageEndingWith("was '" + "f".repeat(60) + "…'");
    }

    @Test
    void aJoinedSubmissionNamesTheRunItJoinedAndCreatedNothing() {
        io.forgeflow.domain.port.JobRepository.JobCreation joined =
                io.forgeflow.domain.port.JobRepository.JobCreation.debounced(null, "run-1");
        assertThat(joined.debouncedInto()).isEqualTo("run-1");
        assertThat(joined.created()).isFalse();
        assertThat(joined.run()).isNull();
    }

    @Test
    void aKeyWithAControlCharacterOrOverTwoHundredCharactersIsRefused() {
        assertThat(fieldOf(() -> new Throttle("a\nb", 1, 1).validate())).isEqualTo("throttle.key");
        assertThat(fieldOf(() -> new Debounce("x".repeat(201), 1, null, null).validate())).isEqualTo("debounce.key");
        assertThat(new Throttle("x".repeat(200), 1, 1).validate().key()).hasSize(200);
    }

    @Test
    void debounceIsForOneOffJobsDueNowOutsideUniqueKeysAndSequences() {
        Debounce d = new Debounce("k", 5, null, null);
        JobDraft base = oneOff().withFlow(d, null);
        assertThat(base.validate().debounce()).isEqualTo(d.validate());
        JobDraft recurring = new JobDraft("n", "shell", Map.of("command", "true"), "* * * * *", null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, d, null);
        JobDraft later = new JobDraft("n", "shell", Map.of("command", "true"), null, Instant.parse("2030-01-01T00:00:00Z"),
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, d, null);
        JobDraft unique = new JobDraft("n", "shell", Map.of("command", "true"), null, null, null, null, null, null, null,
                null, null, null, null, null, "u", null, null, null, null, null, null, null, null, d, null);
        JobDraft sequenced = new JobDraft("n", "shell", Map.of("command", "true"), null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, "s", null, null, d, null);
        for (JobDraft refused : new JobDraft[] {recurring, later, unique, sequenced}) {
            assertThatThrownBy(refused::validate).isInstanceOf(ValidationException.class)
                    .extracting(e -> ((ValidationException) e).field()).isEqualTo("debounce");
        }
    }

    @Test
    void throttleGoesWithAnyJobAndCountsInTheSameRequest() {
        Throttle t = new Throttle("k", 5, 2);
        JobSpec a = oneOff().withFlow(null, t).validate();
        assertThat(a.throttle()).isEqualTo(t);
        assertThat(a.sameRequestAs(oneOff().withFlow(null, t).validate())).isTrue();
        assertThat(a.sameRequestAs(oneOff().withFlow(null, new Throttle("k", 6, 2)).validate())).isFalse();
        assertThat(a.sameRequestAs(oneOff().validate())).isFalse();
    }
}
