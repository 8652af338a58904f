package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NotifyTest {

    static void refused(Notify notify, String field, String message) {
        assertThatThrownBy(notify::validate).isInstanceOf(ValidationException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo(field));
    }

    @Test
    void onDefaultsToEveryEventAndIsKeptInTheApisOrderWithoutRepeats() {
        assertThat(new Notify("https://hooks.example.com/a", null).validate().on())
                .containsExactly("dead", "paused", "recovered");
        assertThat(new Notify("http://hooks.example.com/a", List.of("recovered", "dead", "dead")).validate().on())
                .containsExactly("dead", "recovered");
    }

    @Test
    void sendsOnlyTheEventsItNames() {
        Notify notify = new Notify("https://h.example.com/", List.of("paused")).validate();
        assertThat(notify.sends("paused")).isTrue();
        assertThat(notify.sends("dead")).isFalse();
        assertThat(notify.sends("recovered")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ftp://h.example.com/x", "mailto:ops@example.com", "javascript:alert(1)"})
    void aSchemeOtherThanHttpOrHttpsIsRefused(String url) {
        refused(new Notify(url, null), "notify.url", "must use http or https");
    }

    @ParameterizedTest
    @ValueSource(strings = {"hooks.example.com/x", "/relative/path", "//h.example.com/x"})
    void aUrlThatIsNotAbsoluteIsRefused(String url) {
        refused(new Notify(url, null), "notify.url", "absolute URL");
    }

    @Test
    void aMissingBlankMalformedHostlessOrSpacedUrlIsRefused() {
        refused(new Notify(null, null), "notify.url", "notify.url is required");
        refused(new Notify("  ", null), "notify.url", "notify.url is required");
        refused(new Notify("https://h.example.com/a b", null), "notify.url", "spaces");
        refused(new Notify("https://h.example.com/\u0000", null), "notify.url", "control characters");
        refused(new Notify("https:///path", null), "notify.url", "no host");
        refused(new Notify("https://h.example.com/%zz", null), "notify.url", "not a valid URL");
    }

    @Test
    void aUrlOfAtMost2000CharactersIsTakenAndALongerOneRefused() {
        String base = "https://h.example.com/";
        String longest = base + "a".repeat(Notify.MAX_URL_LENGTH - base.length());
        assertThat(new Notify(longest, null).validate().url()).hasSize(2000);
        refused(new Notify(longest + "a", null), "notify.url", "at most 2000 characters, was 2001");
    }

    @Test
    void anEmptyOrUnknownEventListIsRefusedNamingNotifyOn() {
        refused(new Notify("https://h.example.com/", List.of()), "notify.on", "at least one event");
        refused(new Notify("https://h.example.com/", List.of("dead", "failed")), "notify.on",
                "unknown event 'failed'");
        refused(new Notify("https://h.example.com/", List.of("DEAD")), "notify.on", "unknown event 'DEAD'");
    }

    @Test
    void parseReadsAConfiguredUrlAndCommaSeparatedEvents() {
        assertThat(Notify.parse("https://h.example.com/", "paused, dead")).isEqualTo(
                new Notify("https://h.example.com/", List.of("dead", "paused")));
        assertThat(Notify.parse(" https://h.example.com/ ", null).on()).isEqualTo(Notify.EVENTS);
        assertThat(Notify.parse(null, null)).isNull();
        assertThat(Notify.parse("", " ")).isNull();
        assertThatThrownBy(() -> Notify.parse(null, "dead")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("notify.url is required with notify.on");
        assertThatThrownBy(() -> Notify.parse("https://h.example.com/", "dead,,paused"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("unknown event ''");
    }

    @Test
    void aDraftChecksItsNotifyAndASpecComparesIt() {
        JobDraft draft = JobDraft.oneOff("n", "shell", java.util.Map.of("command", "true"));
        assertThat(draft.validate().notices()).isNull();
        JobSpec spec = draft.withNotify(new Notify("https://h.example.com/", List.of("dead"))).validate();
        assertThat(spec.notices()).isEqualTo(new Notify("https://h.example.com/", List.of("dead")));
        assertThat(spec.sameRequestAs(draft.validate())).isFalse();
        assertThat(spec.sameRequestAs(spec.withNotify(new Notify("https://h.example.com/", List.of("dead")))))
                .isTrue();
        assertThatThrownBy(() -> draft.withNotify(new Notify("ftp://h/", null)).validate())
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void aPatchReplacesNotifyAsAWholeOrRemovesItAndKeepsItWhenNotGiven() {
        JobSpec current = JobDraft.oneOff("n", "shell", java.util.Map.of("command", "true"))
                .withNotify(new Notify("https://h.example.com/", null)).validate();
        JobDraft values = JobDraft.oneOff(null, null, null).withNotify(new Notify("https://other.example.com/",
                List.of("paused")));

        assertThat(new JobPatch(values, java.util.Set.of("notify")).applyTo(current).notices())
                .isEqualTo(new Notify("https://other.example.com/", List.of("paused")));
        assertThat(new JobPatch(JobDraft.oneOff(null, null, null), java.util.Set.of("notify")).applyTo(current)
                .notices()).isNull();
        assertThat(new JobPatch(values, java.util.Set.of("priority")).applyTo(current).notices())
                .isEqualTo(current.notices());
        assertThatThrownBy(() -> new JobPatch(JobDraft.oneOff(null, null, null).withNotify(
                new Notify("https://h.example.com/", List.of())), java.util.Set.of("notify")).applyTo(current))
                .isInstanceOf(ValidationException.class).hasMessageContaining("notify.on");
    }

    @Test
    void theBodyIsCompactJsonInAFixedOrderWithEscapes() {
        Notice notice = new Notice(7, "dead", "0190-job", "say \"hi\"\n", "https://h.example.com/", "0190-run", 3,
                "exit 3\tboom \\ \u0001", null, Instant.parse("2026-01-01T00:00:00Z"));

        assertThat(notice.body()).isEqualTo("{\"event\":\"dead\",\"job_id\":\"0190-job\",\"job_name\":\"say \\\"hi\\\"\\n\","
                + "\"run_id\":\"0190-run\",\"attempt\":3,\"error\":\"exit 3\\tboom \\\\ \\u0001\",\"note\":null,"
                + "\"at\":\"2026-01-01T00:00:00Z\"}");
        assertThat(notice.idempotencyKey()).isEqualTo("notice:7");
    }

    @Test
    void theSignatureIsTheHmacSha256OfTheBodyBytes() throws Exception {
        for (byte[] secret : new byte[][] {"k".getBytes(StandardCharsets.UTF_8), new byte[64], new byte[100]}) {
            Arrays.fill(secret, secret.length > 1 ? (byte) 0x5a : secret[0]);
            String body = "{\"event\":\"paused\",\"job_name\":\"nuit \u00e9t\u00e9 \uD83C\uDF19\"}";
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            assertThat(Notice.signature(secret, body)).isEqualTo(
                    "sha256=" + HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8))));
        }
    }

    @Test
    void aNoticeOfAnUnknownEventCannotBeMade() {
        assertThatThrownBy(() -> new Notice(1, "failed", "j", "n", "https://h/", null, null, null, null,
                Instant.EPOCH)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSchemeIsReadInAnyCaseAndTheUrlKeptAsGiven() {
        assertThat(new Notify("HTTPS://H.Example.COM/Hook", null).validate().url()).isEqualTo("HTTPS://H.Example.COM/Hook");
    }

    @Test
    void aNotifyWithoutEventsSendsNothingUntilValidated() {
        assertThat(new Notify("https://h.example.com/", null).sends("dead")).isFalse();
    }

    @Test
    void anUnknownEventIsShownCutAfter40CharactersWithControlCharactersReplaced() {
        String forty = "x".repeat(40);
        refused(new Notify("https://h.example.com/", List.of(forty)), "notify.on", "'" + forty + "'");
        refused(new Notify("https://h.example.com/", List.of(forty + "y")), "notify.on", "'" + forty + "…'");
        refused(new Notify("https://h.example.com/", List.of("a\u0007b")), "notify.on", "'a?b'");
        refused(new Notify("https://h.example.com/", java.util.Arrays.asList("dead", null)), "notify.on",
                "unknown event 'null'");
    }

    @Test
    void blankEventsInTheConfigurationMeanAllThree() {
        assertThat(Notify.parse("https://h.example.com/", "  ").on()).isEqualTo(Notify.EVENTS);
    }

    @Test
    void aNoticeNeedsItsEventJobUrlAndTime() {
        Instant at = Instant.EPOCH;
        assertThatThrownBy(() -> new Notice(1, null, "j", "n", "https://h/", null, null, null, null, at))
                .isInstanceOf(NullPointerException.class).hasMessage("event");
        assertThatThrownBy(() -> new Notice(1, "dead", null, "n", "https://h/", null, null, null, null, at))
                .isInstanceOf(NullPointerException.class).hasMessage("jobId");
        assertThatThrownBy(() -> new Notice(1, "dead", "j", "n", null, null, null, null, null, at))
                .isInstanceOf(NullPointerException.class).hasMessage("url");
        assertThatThrownBy(() -> new Notice(1, "dead", "j", "n", "https://h/", null, null, null, null, null))
                .isInstanceOf(NullPointerException.class).hasMessage("at");
    }

    @Test
    void aCarriageReturnInTheBodyIsEscaped() {
        Notice notice = new Notice(2, "paused", "j", "a\rb", "https://h/", null, null, null, "why", Instant.EPOCH);
        assertThat(notice.body()).contains("\"job_name\":\"a\\rb\"", "\"note\":\"why\"", "\"run_id\":null",
                "\"attempt\":null");
    }
}
