package io.forgeflow.client.jdbc;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonTest {
    @Test
    void writesEveryJsonValueAndEscapesStrings() {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("s", "a\"b\\c\nd\re\tf\u0001g");
        payload.put("i", 7);
        payload.put("l", 8L);
        payload.put("d", 1.5);
        payload.put("b", new BigDecimal("2.50"));
        payload.put("t", true);
        payload.put("n", null);
        payload.put("list", Arrays.asList(1, "x", null, List.of()));
        payload.put("map", Map.of("k", false));

        assertThat(Json.write(payload)).isEqualTo("{\"s\":\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\",\"i\":7,\"l\":8,"
                + "\"d\":1.5,\"b\":2.50,\"t\":true,\"n\":null,\"list\":[1,\"x\",null,[]],\"map\":{\"k\":false}}");
    }

    @Test
    void refusesWhatJsonCannotSay() {
        assertThatThrownBy(() -> Json.write(Map.of("x", Double.NaN))).hasMessageContaining("finite");
        assertThatThrownBy(() -> Json.write(Map.of("x", Float.POSITIVE_INFINITY))).hasMessageContaining("finite");
        assertThatThrownBy(() -> Json.write(Map.of("x", new Object()))).hasMessageContaining("java.lang.Object");
    }

    @Test
    void theBuildersWriteThePayloadOfTheBuiltInExecutors() {
        assertThat(JobRequest.shell("j", "echo \"hi\"").build().payloadJson()).isEqualTo("{\"command\":\"echo \\\"hi\\\"\"}");
        assertThat(JobRequest.http("j", "https://x").build().payloadJson()).isEqualTo("{\"url\":\"https://x\"}");
        assertThat(JobRequest.builder("j", "noop").build().payloadJson()).isNull();
        assertThat(JobRequest.builder("j", "noop").payload(null).build().payloadJson()).isNull();
    }

    @Test
    void aSchemaNameMustNeedNoQuoting() {
        assertThatThrownBy(() -> new ForgeFlowJdbc("x; DROP TABLE jobs")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lower-case letters");
        assertThatThrownBy(() -> new ForgeFlowJdbc(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
