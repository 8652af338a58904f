package io.forgeflow.adapter.rest;

import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scopes per executor over real HTTP (rest-auth-test.yml): {@code submit:http} submits http jobs only,
 * {@code submit:shell+submit:http} both, plain {@code submit} and {@code admin} every executor.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ExecutorScopesTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-auth-test.yml"));

    static final String WEBHOOK = "webhook-token-0123456789";
    static final String SHELL_HTTP = "shell-http-token-0123456789";

    static String job(String executor) {
        String payload = executor.equals("shell") ? "{\"command\": \"true\"}" : "{\"url\": \"https://example.com/hook\"}";
        return "{\"name\": \"scoped\", \"executor\": \"" + executor + "\", \"payload\": " + payload + "}";
    }

    @ParameterizedTest(name = "{0} submits {1}: {2}")
    @CsvSource({
            "webhook-token-0123456789,    http,  201",
            "webhook-token-0123456789,    shell, 403",
            "shell-http-token-0123456789, http,  201",
            "shell-http-token-0123456789, shell, 201",
            "submit-token-0123456789,     shell, 201",
            "submit-token-0123456789,     http,  201",
            "admin-token-0123456789,      shell, 201",
            "admin-token-0123456789,      http,  201",
            "read-token-0123456789,       http,  403",
            "operate-token-0123456789,    shell, 403"})
    void eachTokenSubmitsToItsExecutorsOnly(String token, String executor, int status) {
        Api.Reply r = new Api(APP.getLocalPort(), token).post("/api/jobs", job(executor));
        assertThat(r.status()).as(r.body()).isEqualTo(status);
    }

    @Test
    void aWebhookOnlyTokenIsToldWhichScopeItLacks() {
        Api.Reply r = new Api(APP.getLocalPort(), WEBHOOK).post("/api/jobs", job("shell"));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.json().get("error").asText()).contains("'submit:shell'").contains("submit:shell, submit or admin");
        assertThat(r.json().get("field").asText()).isEqualTo("executor");
        assertThat(r.body()).doesNotContain(WEBHOOK);
    }

    @Test
    void anExecutorScopedTokenReachesNoOtherRoute() {
        Api api = new Api(APP.getLocalPort(), WEBHOOK);
        assertThat(api.get("/api/jobs").status()).isEqualTo(403);
        assertThat(api.post("/api/jobs/01900000-0000-7000-8000-000000000000/trigger").status()).isEqualTo(403);
        assertThat(new Api(APP.getLocalPort(), SHELL_HTTP).get("/api/jobs").status()).isEqualTo(200);
    }

    @Test
    void theTokensParseIntoExecutorScopes() {
        ApiTokens tokens = ApiTokens.parse(List.of("submit:http:" + WEBHOOK, "read+submit:shell+submit:http:" + SHELL_HTTP,
                "submit:sha256:" + "ab".repeat(32), "submit:shell:sha256:" + "cd".repeat(32)));
        ApiPrincipal webhook = tokens.authenticate(WEBHOOK).orElseThrow();
        assertThat(webhook.scopes()).isEmpty();
        assertThat(webhook.submitExecutors()).containsExactly("http");
        assertThat(webhook.has(Scope.SUBMIT)).isTrue();
        assertThat(webhook.has(Scope.READ)).isFalse();
        assertThat(webhook.maySubmit("http")).isTrue();
        assertThat(webhook.maySubmit("shell")).isFalse();
        assertThat(webhook.toString()).isEqualTo("token 1 (submit:http)");
        ApiPrincipal both = tokens.authenticate(SHELL_HTTP).orElseThrow();
        assertThat(both.scopes()).containsExactly(Scope.READ);
        assertThat(both.submitExecutors()).containsExactly("http", "shell");
        assertThat(tokens.size()).isEqualTo(4);
        ApiPrincipal plain = new ApiPrincipal("p", Set.of(Scope.SUBMIT));
        assertThat(plain.maySubmit("anything")).isTrue();
        assertThat(new ApiPrincipal("a", Set.of(Scope.ADMIN)).maySubmit("shell")).isTrue();
        assertThat(new ApiPrincipal("r", Set.of(Scope.READ)).maySubmit("shell")).isFalse();
    }
}
