package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Real Jackson exceptions, as any JSON binding would raise them, answered as API errors. */
class JsonProcessingExceptionMapperTest {
    private final ObjectMapper strict = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(10).build()).build())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .findAndRegisterModules();
    private final JsonProcessingExceptionMapper mapper = new JsonProcessingExceptionMapper();

    public record Probe(@JsonProperty("max_attempts") int maxAttempts, @JsonProperty("run_at") Instant runAt,
                        @JsonProperty("items") List<Item> items) {
    }

    public record Item(@JsonProperty("name") String name) {
        public Item {
            if (name != null && name.isEmpty()) {
                throw new IllegalArgumentException("name must not be empty");
            }
        }
    }

    private JsonNode answer(String json, Class<? extends JsonProcessingException> expected, int status) throws Exception {
        JsonProcessingException e = catchThrowableOfType(expected, () -> strict.readValue(json, Probe.class));
        assertThat(e).as("Jackson threw %s", expected.getSimpleName()).isNotNull();
        Response r = mapper.toResponse(e);
        assertThat(r.getStatus()).isEqualTo(status);
        assertThat(r.getMediaType().toString()).isEqualTo("application/json");
        JsonNode body = new ObjectMapper().readTree((String) r.getEntity());
        assertThat(body.get("error").asText()).isNotBlank().doesNotContain("com.fasterxml", "java.");
        return body;
    }

    @Test
    void malformedJsonIs400() throws Exception {
        assertThat(answer("{\"max_attempts\": ", JsonProcessingException.class, 400).has("field")).isFalse();
    }

    @Test
    void anUnknownFieldIs422NamingIt() throws Exception {
        JsonNode body = answer("{\"maxAttempts\": 3}", UnrecognizedPropertyException.class, 422);
        assertThat(body.get("field").asText()).isEqualTo("maxAttempts");
    }

    @Test
    void aValueOfTheWrongFormatIs422NamingItsPath() throws Exception {
        JsonNode body = answer("{\"max_attempts\": \"three\"}", InvalidFormatException.class, 422);
        assertThat(body.get("field").asText()).isEqualTo("max_attempts");
        assertThat(body.get("error").asText()).contains("number");
    }

    @Test
    void aValueOfTheWrongShapeIs422NamingItsPath() throws Exception {
        JsonNode body = answer("{\"items\": [{\"name\": []}]}", MismatchedInputException.class, 422);
        assertThat(body.get("field").asText()).isEqualTo("items[0].name");
    }

    @Test
    void aBodyOfTheWrongShapeIs400() throws Exception {
        assertThat(answer("[1]", MismatchedInputException.class, 400).has("field")).isFalse();
    }

    @Test
    void aValueItsTypeRefusesIs422WithTheReason() throws Exception {
        JsonNode body = answer("{\"items\": [{\"name\": \"\"}]}", ValueInstantiationException.class, 422);
        assertThat(body.get("field").asText()).isEqualTo("items[0]");
        assertThat(body.get("error").asText()).contains("name must not be empty");
    }

    @Test
    void aValueOverALimitIs422() throws Exception {
        answer("{\"max_attempts\": 123456789012345}", JsonProcessingException.class, 422);
    }
}
