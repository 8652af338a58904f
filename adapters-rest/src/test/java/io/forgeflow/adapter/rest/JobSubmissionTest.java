package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobDraft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobSubmissionTest {

    private static JobDraft read(String json) {
        return JobSubmission.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void everyFieldIsReadIntoTheDraft() {
        JobDraft d = read("{\"name\": \"n\", \"executor\": \"http\", \"payload\": {\"url\": \"http://x\", \"headers\": "
                + "{\"a\": \"b\"}, \"body\": [1, 2.5, true, null]}, \"run_at\": \"2026-07-01T09:30:00Z\", \"timezone\": "
                + "\"Europe/Berlin\", \"priority\": 1, \"max_attempts\": 7, \"timeout_seconds\": 60, \"catch_up\": \"once\", "
                + "\"idempotency_key\": \"k\"}");

        assertThat(d).isEqualTo(new JobDraft("n", "http", Map.of("url", "http://x", "headers", Map.of("a", "b"),
                "body", java.util.Arrays.asList(1, 2.5, true, null)), null, Instant.parse("2026-07-01T09:30:00Z"),
                "Europe/Berlin", 1, 7, 60, "once", "k"));
    }

    @Test
    void nullsAreAbsentValues() {
        JobDraft d = read("{\"name\": \"n\", \"executor\": \"shell\", \"payload\": null, \"priority\": null}");

        assertThat(d.payload()).isNull();
        assertThat(d.priority()).isNull();
        assertThat(d.validate().priority()).isEqualTo(JobDraft.DEFAULT_PRIORITY);
    }

    @ParameterizedTest
    @CsvSource({
            "2026-07-01T09:30:00Z, 2026-07-01T09:30:00Z",
            "2026-07-01t09:30:00z, 2026-07-01T09:30:00Z",
            "2026-07-01 09:30:00Z, 2026-07-01T09:30:00Z",
            "2026-07-01T11:30:00.250+02:00, 2026-07-01T09:30:00.250Z",
            "2026-07-01T04:30:00-05:00, 2026-07-01T09:30:00Z"})
    void runAtAcceptsRfc3339Timestamps(String given, String expected) {
        assertThat(read("{\"run_at\": \"" + given + "\"}").runAt()).isEqualTo(Instant.parse(expected));
    }

    @ParameterizedTest
    @CsvSource({
            "cron, cron_expr",
            "cronExpr, cron_expr",
            "CRON-EXPR, cron_expr",
            "schedule, cron_expr",
            "maxAttempts, max_attempts",
            "retries, max_attempts",
            "priorty, priority",
            "timeout, timeout_seconds",
            "tz, timezone",
            "runAt, run_at",
            "command, payload.command",
            "idempotencyKey, idempotency_key",
            "concurrency, max_concurrent",
            "maxConcurrency, max_concurrent",
            "max-concurrency, max_concurrent",
            "concurrencyLimit, max_concurrent",
            "maxConcurrent, max_concurrent",
            "concurrencyKey, concurrency_key",
            "concurrencyGroup, concurrency_key",
            "queueName, queue",
            "queues, queue",
            "Queue, queue",
            "overlapPolicy, overlap",
            "overlaps, overlap"})
    void anUnknownFieldSuggestsTheFieldMeant(String given, String meant) {
        assertThatThrownBy(() -> read("{\"" + given + "\": 1}"))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo(given);
                    assertThat(e.getMessage()).startsWith("unknown field '" + given + "' — did you mean " + meant + "?");
                });
    }

    @Test
    void anUnknownFieldWithoutAGoodGuessListsTheFields() {
        assertThatThrownBy(() -> read("{\"colour\": \"blue\"}"))
                .isInstanceOfSatisfying(ValidationException.class, e ->
                        assertThat(e.getMessage()).isEqualTo("unknown field 'colour': a job has name, executor, payload, "
                                + "cron_expr, run_at, timezone, priority, max_attempts, timeout_seconds, catch_up, "
                                + "idempotency_key, queue, concurrency_key, max_concurrent, overlap, unique_key, unique_on_conflict, retry, labels, "
                                + "start_at, end_at, max_runs, jitter_seconds, pause_after_failures, sequence_key, on_dead, notify, debounce, throttle, tenant"));
    }

    @Test
    void aWrongTypeSaysWhatWasExpectedAndWhatCame() {
        assertThatThrownBy(() -> read("{\"priority\": \"high\"}"))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("priority");
                    assertThat(e.getMessage()).isEqualTo("priority must be a whole number from 1 to 9, not a string");
                });
        assertThatThrownBy(() -> read("{\"run_at\": \"soon\"}"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.getMessage())
                        .contains("RFC 3339").contains("2026-07-01T09:30:00Z"));
    }

    @Test
    void theQueueFieldsAreReadIntoTheDraft() {
        JobDraft d = read("{\"name\": \"n\", \"executor\": \"shell\", \"cron_expr\": \"@daily\", \"queue\": \"reports\", "
                + "\"concurrency_key\": \"billing\", \"max_concurrent\": 3, \"overlap\": \"cancel_running\"}");

        assertThat(d.queue()).isEqualTo("reports");
        assertThat(d.concurrencyKey()).isEqualTo("billing");
        assertThat(d.maxConcurrent()).isEqualTo(3);
        assertThat(d.overlap()).isEqualTo("cancel_running");
        assertThat(read("{\"queue\": null, \"max_concurrent\": null, \"overlap\": null}").queue()).isNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
            "queue            | 5                | queue must be a string (a queue name such as \"reports\"), not a number (5)",
            "queue            | [\"a\"]            | queue must be a string (a queue name such as \"reports\"), not an array",
            "queue            | {}               | not an object",
            "concurrency_key  | true             | concurrency_key must be a string (a key such as \"billing\"",
            "concurrency_key  | 7                | not a number (7)",
            "max_concurrent   | \"2\"              | max_concurrent must be a whole number from 1 to 10000, not a string",
            "max_concurrent   | 2.5              | max_concurrent must be a whole number from 1 to 10000, not a number (2.5)",
            "max_concurrent   | 2.0              | not a number (2.0)",
            "max_concurrent   | true             | not a boolean (true)",
            "max_concurrent   | 99999999999      | max_concurrent must be between 1 and 10000, was 99999999999",
            "max_concurrent   | 99999999999999999999999 | max_concurrent must be between 1 and 10000, was 99999999999999999999999",
            "overlap          | 1                | overlap must be a string (\"allow\", \"skip\", \"queue_one\" or \"cancel_running\"), not a number (1)",
            "overlap          | [\"skip\"]         | not an array"})
    void aQueueFieldOfTheWrongJsonTypeIsRefusedNamingItAndWhatItTakes(String field, String json, String message) {
        assertThatThrownBy(() -> read("{\"" + field + "\": " + json + "}"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageContaining(message);
    }

    @Test
    void notifyIsReadAsAUrlAndAListOfEventsLeftToTheDomainToCheck() {
        JobDraft d = read("{\"name\": \"n\", \"executor\": \"shell\", \"notify\": {\"url\": \"https://h.example.com/\", "
                + "\"on\": [\"recovered\", \"dead\"]}}");
        assertThat(d.notices()).isEqualTo(new io.forgeflow.domain.job.Notify("https://h.example.com/",
                java.util.List.of("recovered", "dead")));
        assertThat(read("{\"name\": \"n\", \"executor\": \"shell\", \"notify\": null}").notices()).isNull();
        assertThat(read("{\"name\": \"n\", \"executor\": \"shell\", \"notify\": {\"url\": \"x\"}}").notices().on())
                .isNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"notify\": \"https://h.example.com/\"                     | notify",
            "\"notify\": {\"url\": 7}                                   | notify.url",
            "\"notify\": {\"url\": \"https://h.example.com/\", \"on\": \"dead\"} | notify.on",
            "\"notify\": {\"url\": \"https://h.example.com/\", \"on\": [1]}    | notify.on",
            "\"notify\": {\"url\": \"https://h.example.com/\", \"events\": []} | notify.events"})
    void aNotifyOfTheWrongShapeIsRefusedNamingTheField(String field, String named) {
        assertThatThrownBy(() -> read("{\"name\": \"n\", \"executor\": \"shell\", " + field + "}"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo(named));
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "\"debounce\": 5 | debounce",
            "\"debounce\": {\"key\": \"k\", \"period_seconds\": 5, \"delay\": 1} | debounce.delay",
            "\"debounce\": {\"key\": 7, \"period_seconds\": 5} | debounce.key",
            "\"debounce\": {\"key\": \"k\", \"period_seconds\": \"5\"} | debounce.period_seconds",
            "\"debounce\": {\"key\": \"k\", \"period_seconds\": 5, \"edge\": \"middle\"} | debounce.edge",
            "\"throttle\": [] | throttle",
            "\"throttle\": {\"key\": \"k\", \"count\": 5} | throttle.per_seconds",
            "\"throttle\": {\"key\": \"k\", \"count\": 99999999999, \"per_seconds\": 2} | throttle.count",
            "\"throttle\": {\"key\": \"k\", \"count\": 5, \"per\": 2} | throttle.per"})
    void aBadDebounceOrThrottleIsRefusedNamingThePart(String fragment, String field) {
        String body = "{\"name\": \"n\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, " + fragment + "}";
        assertThatThrownBy(() -> JobSubmission.read(new java.io.ByteArrayInputStream(
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8))).validate())
                .isInstanceOf(io.forgeflow.domain.error.ValidationException.class)
                .extracting(e -> ((io.forgeflow.domain.error.ValidationException) e).field()).isEqualTo(field);
    }
}
