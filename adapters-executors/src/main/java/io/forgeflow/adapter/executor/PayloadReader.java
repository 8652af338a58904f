package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads an executor payload as Jackson leaves it (String, Integer/Long/BigInteger, Double, Boolean, List, Map,
 * null) and throws a {@link ValidationException} naming {@code payload.<key>} for anything out of place. Keys the
 * executor does not know are rejected, so that a typo ({@code "header"} for {@code "headers"}) is not silently
 * ignored. A key present with a JSON null counts as absent.
 */
final class PayloadReader {
    private final String executor;
    private final Map<String, Object> payload;

    PayloadReader(String executor, Map<String, Object> payload, Set<String> knownKeys) {
        this.executor = executor;
        this.payload = payload == null ? Map.of() : payload;
        for (String key : new TreeSet<>(this.payload.keySet())) {
            if (!knownKeys.contains(key)) {
                throw new ValidationException(field(key), field(key) + " is not a field of the " + executor
                        + " executor (misspelt?); its fields are " + String.join(", ", new TreeSet<>(knownKeys)));
            }
        }
    }

    static String field(String key) {
        return "payload." + key;
    }

    boolean has(String key) {
        return payload.get(key) != null;
    }

    Object raw(String key) {
        return payload.get(key);
    }

    String requiredString(String key, String example) {
        Object value = payload.get(key);
        if (value == null) {
            throw new ValidationException(field(key), field(key) + " is required by the " + executor
                    + " executor, e.g. {\"" + key + "\": " + example + "}");
        }
        if (!(value instanceof String)) {
            throw new ValidationException(field(key), field(key) + " must be a string, e.g. " + example
                    + "; got " + jsonType(value));
        }
        String text = (String) value;
        if (text.isBlank()) {
            throw new ValidationException(field(key), field(key) + " must not be blank, e.g. " + example);
        }
        return text;
    }

    /** An optional string; {@code fallback} when absent. */
    String optionalString(String key, String fallback) {
        Object value = payload.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof String)) {
            throw new ValidationException(field(key), field(key) + " must be a string; got " + jsonType(value));
        }
        return (String) value;
    }

    /** An optional whole number within [min, max]; {@code fallback} when absent. */
    long optionalWholeNumber(String key, long min, long max, long fallback) {
        Object value = payload.get(key);
        return value == null ? fallback : wholeNumber(field(key), value, min, max);
    }

    /** An optional JSON array; null when absent. */
    List<?> optionalList(String key) {
        Object value = payload.get(key);
        if (value != null && !(value instanceof List)) {
            throw new ValidationException(field(key), field(key) + " must be an array; got " + jsonType(value));
        }
        return (List<?>) value;
    }

    /** An optional JSON object; null when absent. */
    Map<?, ?> optionalObject(String key) {
        Object value = payload.get(key);
        if (value != null && !(value instanceof Map)) {
            throw new ValidationException(field(key), field(key) + " must be an object; got " + jsonType(value));
        }
        return (Map<?, ?>) value;
    }

    static long wholeNumber(String field, Object value, long min, long max) {
        boolean integral = value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte || value instanceof BigInteger;
        if (!integral || (value instanceof BigInteger && ((BigInteger) value).bitLength() > 63)) {
            throw new ValidationException(field, field + " must be a whole number from " + min + " to " + max
                    + "; got " + jsonType(value));
        }
        long number = ((Number) value).longValue();
        if (number < min || number > max) {
            throw new ValidationException(field, field + " must be from " + min + " to " + max + "; got " + number);
        }
        return number;
    }

    /** The JSON name of a value's type, for messages (values themselves are not echoed: they may be secret). */
    static String jsonType(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String) {
            return "a string";
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        if (value instanceof Number) {
            return value instanceof Double || value instanceof Float || value instanceof java.math.BigDecimal
                    ? "a decimal number" : "a number";
        }
        if (value instanceof List) {
            return "an array";
        }
        if (value instanceof Map) {
            return "an object";
        }
        return value.getClass().getSimpleName();
    }
}
