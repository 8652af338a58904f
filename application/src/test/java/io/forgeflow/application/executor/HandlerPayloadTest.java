package io.forgeflow.application.executor;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HandlerPayloadTest {

    @Test
    void aHandlerAndItsArgsAreRead() {
        HandlerPayload p = HandlerPayload.of(Map.of("handler", "send-receipt", "args", Map.of("order_id", 42)));

        assertThat(p.handler()).isEqualTo("send-receipt");
        assertThat(p.args()).containsEntry("order_id", 42);
    }

    @Test
    void argsLeftOutOrNullReadAsEmpty() {
        Map<String, Object> withNull = new HashMap<>();
        withNull.put("handler", "h");
        withNull.put("args", null);

        assertThat(HandlerPayload.of(Map.of("handler", "h")).args()).isEmpty();
        assertThat(HandlerPayload.of(withNull).args()).isEmpty();
    }

    @Test
    void aMissingHandlerIsRefusedNamingTheFieldWithAnExample() {
        assertThatThrownBy(() -> HandlerPayload.of(Map.of("args", Map.of())))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("payload.handler");
                    assertThat(e.getMessage()).startsWith("payload.handler is required by the java executor")
                            .contains("\"handler\": \"send-receipt\"");
                });
        assertThatThrownBy(() -> HandlerPayload.of(null))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("payload.handler"));
    }

    @Test
    void aHandlerThatIsNoStringIsRefused() {
        assertThatThrownBy(() -> HandlerPayload.of(Map.of("handler", 7)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("payload.handler");
                    assertThat(e.getMessage()).isEqualTo("payload.handler must be a string, e.g. \"send-receipt\"");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "send receipt", "-leading", ".leading", "ü", "a/b"})
    void aMalformedHandlerNameIsRefused(String name) {
        assertThatThrownBy(() -> HandlerPayload.of(Map.of("handler", name)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("payload.handler");
                    assertThat(e.getMessage()).startsWith("payload.handler must be 1 to 100 letters, digits");
                });
    }

    @Test
    void namesUpToAHundredCharactersAreAccepted() {
        assertThat(HandlerPayload.isValidName("a".repeat(100))).isTrue();
        assertThat(HandlerPayload.isValidName("a".repeat(101))).isFalse();
        assertThat(HandlerPayload.isValidName("Report_v2.daily-1")).isTrue();
        assertThat(HandlerPayload.isValidName("9lives")).isTrue();
        assertThat(HandlerPayload.isValidName(null)).isFalse();
    }

    @Test
    void argsThatAreNoObjectAreRefused() {
        assertThatThrownBy(() -> HandlerPayload.of(Map.of("handler", "h", "args", List.of(1))))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("payload.args");
                    assertThat(e.getMessage()).startsWith("payload.args must be an object");
                });
    }

    @Test
    void anUnknownFieldIsRefusedByItsName() {
        assertThatThrownBy(() -> HandlerPayload.of(Map.of("handler", "h", "arguments", Map.of())))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("payload.arguments");
                    assertThat(e.getMessage()).isEqualTo("payload.arguments is not a field of the java executor "
                            + "(misspelt?); its fields are args, handler");
                });
    }

    @Test
    void theClaimKeyNamesTheHandlerAfterTheExecutor() {
        assertThat(HandlerPayload.claimKey("send-receipt")).isEqualTo("java:send-receipt");
        assertThat(HandlerPayload.EXECUTOR).isEqualTo("java");
    }

    @Test
    void handlerOfReadsANameForDisplayAndNothingElse() {
        assertThat(HandlerPayload.handlerOf(Map.of("handler", "h"))).isEqualTo("h");
        assertThat(HandlerPayload.handlerOf(Map.of("handler", 3))).isNull();
        assertThat(HandlerPayload.handlerOf(Map.of())).isNull();
        assertThat(HandlerPayload.handlerOf(null)).isNull();
    }

    @Test
    void theRecordNeedsAHandler() {
        assertThatThrownBy(() -> new HandlerPayload(null, Map.of())).isInstanceOf(NullPointerException.class);
        assertThat(new HandlerPayload("h", null).args()).isEmpty();
    }
}
