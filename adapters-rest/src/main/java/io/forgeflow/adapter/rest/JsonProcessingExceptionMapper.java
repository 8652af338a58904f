package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.core.JsonGenerationException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.PropertyBindingException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * The safety net for Jackson's exceptions wherever they come from (this adapter parses job bodies itself, see
 * {@link JsonBody}; this catches anything bound by a JSON provider): syntax errors and duplicate keys are 400,
 * a well-formed document whose values do not fit is 422 naming the field by its JSON path. Registered as a
 * mapper of {@link JsonProcessingException}, so JAX-RS prefers it to the catch-all {@link UnexpectedExceptionMapper}
 * for {@code JsonParseException}, {@code MismatchedInputException}, {@code UnrecognizedPropertyException},
 * {@code InvalidFormatException}, {@code ValueInstantiationException} and every other {@code JsonMappingException}.
 */
public final class JsonProcessingExceptionMapper implements ExceptionMapper<JsonProcessingException> {
    private final UnexpectedExceptionMapper unexpected = new UnexpectedExceptionMapper();

    @Override
    public Response toResponse(JsonProcessingException e) {
        if (e instanceof JsonGenerationException) {
            return unexpected.toResponse(e); // writing a response failed: our bug, not the client's
        }
        if (e instanceof StreamConstraintsException) {
            return ErrorBody.response(422, "the JSON document exceeds a size limit (number length, string length "
                    + "or nesting depth): " + original(e), null);
        }
        if (!(e instanceof JsonMappingException)) {
            return ErrorBody.response(400, "the request body is not valid JSON: " + original(e), null);
        }
        JsonMappingException m = (JsonMappingException) e;
        String field = path(m);
        if (e instanceof PropertyBindingException) {
            String name = ((PropertyBindingException) e).getPropertyName();
            return ErrorBody.response(422, "unknown field '" + name + "'", field);
        }
        if (e instanceof InvalidFormatException) {
            InvalidFormatException f = (InvalidFormatException) e;
            return ErrorBody.response(422, (field == null ? "a value" : field) + " has the wrong format: '"
                    + f.getValue() + "' is not a valid " + simpleType(f.getTargetType()), field);
        }
        if (e instanceof ValueInstantiationException) {
            Throwable cause = e.getCause();
            return ErrorBody.response(422, (field == null ? "the body" : field) + " is not valid"
                    + (cause != null && cause.getMessage() != null ? ": " + cause.getMessage() : ""), field);
        }
        if (e instanceof MismatchedInputException) {
            MismatchedInputException mi = (MismatchedInputException) e;
            if (field == null) {
                return ErrorBody.response(400, "the request body must be a JSON object", null);
            }
            return ErrorBody.response(422, field + " has the wrong type: expected " + simpleType(mi.getTargetType()), field);
        }
        return ErrorBody.response(field == null ? 400 : 422, "the request body could not be read: " + original(e), field);
    }

    /** The snake_case JSON path of the value at fault: {@code payload.headers}, {@code items[2].name}. */
    static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    private static String original(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }

    private static String simpleType(Class<?> type) {
        if (type == null) {
            return "value";
        }
        if (Number.class.isAssignableFrom(type) || (type.isPrimitive() && type != boolean.class)) {
            return "number";
        }
        if (type == String.class) {
            return "string";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "boolean";
        }
        if (java.util.Map.class.isAssignableFrom(type)) {
            return "JSON object";
        }
        if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "JSON array";
        }
        return "value";
    }
}
