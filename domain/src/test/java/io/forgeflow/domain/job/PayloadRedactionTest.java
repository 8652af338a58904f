package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules REST and gRPC share for what of a payload they show; adapters-rest's test checks them over HTTP. */
class PayloadRedactionTest {

    @SuppressWarnings("unchecked")
    static Map<String, Object> headers(Map<String, Object> payload) {
        return (Map<String, Object>) payload.get("headers");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
            "Authorization, true", "authorization, true", "Proxy-Authorization, true", "Cookie, true",
            "X-Api-Key, true", "X-API-KEY, true", "X-Auth-Token, true", "X-Client-Secret, true", "Api-Key, true",
            "X-Signing-Key, true", "X-Password, true", "X-Session-Id, true", "X-Amz-Security-Token, true",
            "X-Credentials, true", "Set-Cookie, true", "Content-Type, false", "Accept, false", "User-Agent, false",
            "X-Request-Id, false", "X-ForgeFlow-Run-Id, false"})
    void sensitiveHeaderNames(String name, boolean sensitive) {
        assertThat(PayloadRedaction.isSensitive(name)).isEqualTo(sensitive);
    }

    @Test
    void aPayloadWithoutSecretsIsShownAsItIs() {
        Map<String, Object> payload = Map.of("url", "https://example.com", "headers", Map.of("Accept", "text/plain"));
        assertThat(PayloadRedaction.redact(payload)).isSameAs(payload);
        Map<String, Object> shell = Map.of("command", "echo hi");
        assertThat(PayloadRedaction.redact(shell)).isSameAs(shell);
        Map<String, Object> odd = Map.of("headers", "not an object");
        assertThat(PayloadRedaction.redact(odd)).isSameAs(odd);
        assertThat(PayloadRedaction.redact(null)).isNull();
    }

    @Test
    void sensitiveValuesAreMaskedInACopyAndTheRestKeptInOrder() {
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Bearer live");
        headers.put("Accept", "text/plain");
        headers.put("X-Api-Key", null);                     // nothing to hide
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("url", "https://example.com");
        payload.put("headers", headers);

        Map<String, Object> shown = PayloadRedaction.redact(payload);

        assertThat(shown).isNotSameAs(payload).containsEntry("url", "https://example.com");
        assertThat(headers(shown).entrySet()).extracting(Map.Entry::getKey)
                .containsExactly("Authorization", "Accept", "X-Api-Key");
        assertThat(headers(shown)).containsEntry("Authorization", PayloadRedaction.MASK)
                .containsEntry("Accept", "text/plain").containsEntry("X-Api-Key", null);
        assertThat(headers).as("the stored payload keeps its secret").containsEntry("Authorization", "Bearer live");
        Map<String, Object> onlyNull = new HashMap<>();
        onlyNull.put("Cookie", null);
        Map<String, Object> withNull = Map.of("headers", onlyNull);
        assertThat(PayloadRedaction.redact(withNull)).as("a null secret masks nothing").isSameAs(withNull);
    }

    @Test
    void anEditSendingTheMaskBackKeepsTheStoredSecretMatchedInAnyCase() {
        Map<String, Object> stored = Map.of("headers", Map.of("authorization", "Bearer live", "Accept", "a"));
        Map<String, Object> sent = new LinkedHashMap<>();
        sent.put("url", "https://example.com/v2");
        sent.put("headers", new LinkedHashMap<>(Map.of("Authorization", PayloadRedaction.MASK)));

        Map<String, Object> restored = PayloadRedaction.restore(sent, stored);

        assertThat(restored).containsEntry("url", "https://example.com/v2");
        assertThat(headers(restored)).containsExactly(Map.entry("Authorization", "Bearer live"));
        Map<String, Object> exact = PayloadRedaction.restore(
                Map.of("headers", Map.of("authorization", PayloadRedaction.MASK)),
                Map.of("headers", Map.of("authorization", "exact", "AUTHORIZATION", "other")));
        assertThat(headers(exact)).containsEntry("authorization", "exact");
    }

    @Test
    void aMaskThatIsNotASecretsOrSentWithoutOneIsKeptOrRefused() {
        Map<String, Object> plain = Map.of("headers", Map.of("Accept", PayloadRedaction.MASK));
        assertThat(headers(PayloadRedaction.restore(plain, Map.of())))
                .as("not a sensitive header: the mask is its value").containsEntry("Accept", PayloadRedaction.MASK);
        Map<String, Object> noMask = Map.of("headers", Map.of("Authorization", "new"));
        assertThat(PayloadRedaction.restore(noMask, Map.of())).isSameAs(noMask);
        Map<String, Object> noHeaders = Map.of("headers", List.of());
        assertThat(PayloadRedaction.restore(noHeaders, Map.of())).isSameAs(noHeaders);
        assertThat(PayloadRedaction.restore(null, Map.of())).isNull();

        Map<String, Object> masked = Map.of("headers", Map.of("X-Api-Key", PayloadRedaction.MASK));
        for (Map<String, Object> stored : List.<Map<String, Object>>of(Map.of(), Map.of("headers", "odd"),
                Map.of("headers", Map.of("Authorization", "x")))) {
            assertThatThrownBy(() -> PayloadRedaction.restore(masked, stored))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("payload.headers.X-Api-Key")
                    .hasMessageContaining("send the header's value");
        }
        Map<String, Object> nullStored = new HashMap<>();
        nullStored.put("x-api-key", null);
        assertThatThrownBy(() -> PayloadRedaction.restore(masked, Map.of("headers", nullStored)))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> PayloadRedaction.restore(masked, null)).isInstanceOf(ValidationException.class);
    }
}
