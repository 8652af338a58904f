package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.forgeflow.adapter.executor.AnAttempt.anAttempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Payload validation: no server needed. Calls against real servers are in {@link HttpRunExecutorIT}. */
class HttpRunExecutorTest {
    static final String URL = "https://example.com/hooks/nightly";
    final HttpRunExecutor http = new HttpRunExecutor();

    @AfterEach
    void close() {
        http.close();
    }

    static Map<String, Object> payload(Object... keysAndValues) {
        Map<String, Object> payload = new HashMap<>();
        payload.put("url", URL);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            payload.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return payload;
    }

    void assertRejected(Map<String, Object> payload, String field, String message) {
        assertThatThrownBy(() -> http.validate(payload))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).contains(field).contains(message);
                });
    }

    @Test
    void isNamedHttp() {
        assertThat(http.name()).isEqualTo("http");
    }

    @Test
    void acceptsAUrlAloneAndAFullPayload() {
        assertThatCode(() -> {
            http.validate(Map.of("url", "http://127.0.0.1:8080/x?y=1"));
            http.validate(payload("method", "put", "headers", Map.of("Authorization", "Bearer t"),
                    "body", Map.of("a", List.of(1, true)), "expected_status", List.of(200, 404L)));
        }).doesNotThrowAnyException();
    }

    @Test
    void rejectsAnUnknownKeySoThatATypoIsNotIgnored() {
        assertRejected(payload("header", Map.of()), "payload.header", "is not a field of the http executor");
    }

    @Nested
    class Url {
        @Test
        void isRequired() {
            assertRejected(Map.of("method", "GET"), "payload.url", "is required");
        }

        @Test
        void mustBeAString() {
            assertRejected(Map.of("url", 42), "payload.url", "must be a string");
        }

        @Test
        void mustNotBeBlank() {
            assertRejected(Map.of("url", " "), "payload.url", "must not be blank");
        }

        @ParameterizedTest
        @ValueSource(strings = {"/hooks/nightly", "example.com/hooks", "localhost:8080/x"})
        void mustBeAbsolute(String url) {
            assertRejected(Map.of("url", url), "payload.url", "must be an absolute URL starting with http:// or https://");
        }

        @ParameterizedTest
        @ValueSource(strings = {"ftp://example.com/file", "file:///etc/passwd", "mailto:ops@example.com"})
        void mustUseHttpOrHttps(String url) {
            assertRejected(Map.of("url", url), "payload.url", "must use http or https, not " + url.substring(0, url.indexOf(':')));
        }

        @ParameterizedTest
        @ValueSource(strings = {"http://", "https://exa mple.com/", "http://example.com:99999/"})
        void mustBeWellFormed(String url) {
            assertRejected(Map.of("url", url), "payload.url", "is not a valid URL");
        }
    }

    @Nested
    class Method {
        @ParameterizedTest
        @ValueSource(strings = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "get", "Post"})
        void acceptsTheSixMethodsInAnyCase(String method) {
            assertThatCode(() -> http.validate(payload("method", method))).doesNotThrowAnyException();
        }

        @Test
        void rejectsOtherMethods() {
            assertRejected(payload("method", "TRACE"), "payload.method", "must be one of GET, POST, PUT, PATCH, DELETE, HEAD");
        }

        @Test
        void mustBeAString() {
            assertRejected(payload("method", 1), "payload.method", "must be a string");
        }
    }

    @Nested
    class Headers {
        @Test
        void mustBeAnObject() {
            assertRejected(payload("headers", List.of("Authorization: x")), "payload.headers", "must be an object");
        }

        @Test
        void mustHaveStringValues() {
            assertRejected(payload("headers", Map.of("X-Count", 5)), "payload.headers", "the value of X-Count is a number");
        }

        @Test
        void mustHaveValidNames() {
            assertRejected(payload("headers", Map.of("Bad Name", "x")), "payload.headers", "invalid header name 'Bad Name'");
        }

        @Test
        void mustHaveValidValuesWhichTheMessageDoesNotEcho() {
            assertThatThrownBy(() -> http.validate(payload("headers", Map.of("Authorization", "Bearer s3cret\r\nX: y"))))
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo("payload.headers");
                        assertThat(e.getMessage()).contains("the value of Authorization has characters not allowed")
                                .doesNotContain("s3cret");
                    });
        }
    }

    @Nested
    class Body {
        @ParameterizedTest
        @ValueSource(strings = {"GET", "HEAD", "get"})
        void isRejectedWithGetAndHead(String method) {
            assertRejected(payload("method", method, "body", Map.of("a", 1)), "payload.body", "cannot be sent with "
                    + method.toUpperCase());
        }

        @Test
        void mayBeAnyJsonValue() {
            for (Object body : new Object[] {Map.of("a", 1), List.of(1, 2), "text", 3, 2.5, true}) {
                assertThatCode(() -> http.validate(payload("method", "DELETE", "body", body))).doesNotThrowAnyException();
            }
        }

        @Test
        void nullCountsAsNoBodyEvenWithGet() {
            Map<String, Object> payload = payload("method", "GET");
            payload.put("body", null);

            assertThatCode(() -> http.validate(payload)).doesNotThrowAnyException();
        }
    }

    @Nested
    class ExpectedStatus {
        @Test
        void mustBeAnArray() {
            assertRejected(payload("expected_status", 200), "payload.expected_status", "must be an array");
        }

        @Test
        void mustNotBeEmpty() {
            assertRejected(payload("expected_status", List.of()), "payload.expected_status", "must list 1 to 500 statuses");
        }

        @Test
        void mustHoldStatusesFrom100To599() {
            assertRejected(payload("expected_status", List.of(200, 99)), "payload.expected_status", "must be from 100 to 599; got 99");
            assertRejected(payload("expected_status", List.of(600)), "payload.expected_status", "must be from 100 to 599; got 600");
        }

        @Test
        void mustHoldWholeNumbers() {
            assertRejected(payload("expected_status", List.of(200.5)), "payload.expected_status", "must be a whole number");
            assertRejected(payload("expected_status", List.of("200")), "payload.expected_status", "got a string");
        }
    }

    @Test
    void executingAnInvalidPayloadFailsTheAttemptInsteadOfThrowing() {
        ExecutionResult result = http.execute(anAttempt().withPayload(Map.of("url", "ftp://x")).build());

        assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
        assertThat(result.error()).startsWith("invalid payload: payload.url must use http or https");
    }
}
