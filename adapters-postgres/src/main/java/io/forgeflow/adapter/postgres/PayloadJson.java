package io.forgeflow.adapter.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.postgresql.util.PGobject;

import java.sql.SQLException;
import java.util.Map;

/** Executor payloads as {@code jsonb}: maps, lists, strings, numbers and booleans, as Jackson reads JSON. */
final class PayloadJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private PayloadJson() {
    }

    static String write(Map<?, ?> payload) {
        try {
            return MAPPER.writeValueAsString(payload == null ? Map.of() : payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("payload cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    static PGobject jsonb(Map<?, ?> payload) throws SQLException {
        PGobject json = new PGobject();
        json.setType("jsonb");
        json.setValue(write(payload));
        return json;
    }

    /** The payload stored as {@code json}; an SQL null reads as null. */
    static Map<String, Object> read(String json) {
        if (json == null) {
            return null;
        }
        try {
            return MAPPER.readValue(json, MAP);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored payload is not a JSON object: " + e.getOriginalMessage(), e);
        }
    }
}
