package io.forgeflow.application.executor;

import io.forgeflow.domain.error.ValidationException;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The payload of executor {@value #EXECUTOR}: {@code {"handler": "send-receipt", "args": {...}}}, a run of a handler
 * that embedded workers register in their own JVM. The same rules as {@code forgeflow_check_payload} in SQL: only
 * {@code handler} (required, {@link #NAME_RULE}) and {@code args} (optional object; none reads as {@code {}}).
 *
 * @param handler the handler's name
 * @param args    what the handler reads as its payload; empty when the job gave none
 */
public record HandlerPayload(String handler, Map<String, Object> args) {
    /** The executor name of handler runs. */
    public static final String EXECUTOR = "java";
    /** What a handler name may be, in words. */
    public static final String NAME_RULE = "1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    public HandlerPayload {
        Objects.requireNonNull(handler, "handler");
        args = args == null ? Map.of() : args;
    }

    /**
     * Reads and checks a payload of executor {@value #EXECUTOR}.
     *
     * @throws ValidationException naming the field at fault ({@code payload.handler}, {@code payload.args}, or an
     *                             unknown {@code payload.<key>}) and how to fix it
     */
    @SuppressWarnings("unchecked")
    public static HandlerPayload of(Map<String, Object> payload) {
        Map<String, Object> fields = payload == null ? Map.of() : payload;
        for (String key : new java.util.TreeSet<>(fields.keySet())) {
            if (!key.equals("handler") && !key.equals("args")) {
                throw new ValidationException("payload." + key, "payload." + key + " is not a field of the java "
                        + "executor (misspelt?); its fields are args, handler");
            }
        }
        Object handler = fields.get("handler");
        if (handler == null) {
            throw new ValidationException("payload.handler", "payload.handler is required by the java executor: the "
                    + "name an embedded worker registered, e.g. {\"handler\": \"send-receipt\", \"args\": {\"order_id\": 42}}");
        }
        if (!(handler instanceof String name)) {
            throw new ValidationException("payload.handler", "payload.handler must be a string, e.g. \"send-receipt\"");
        }
        if (!isValidName(name)) {
            throw new ValidationException("payload.handler", "payload.handler must be " + NAME_RULE
                    + ", e.g. \"send-receipt\"");
        }
        Object args = fields.get("args");
        if (args != null && !(args instanceof Map)) {
            throw new ValidationException("payload.args", "payload.args must be an object (the handler reads it as "
                    + "ctx.payload()), e.g. {\"order_id\": 42}");
        }
        return new HandlerPayload(name, (Map<String, Object>) args);
    }

    /** Whether {@code name} may name a handler ({@link #NAME_RULE}). */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /**
     * The name a worker claims this handler's runs by: {@code java:<handler>} (the database's
     * {@code forgeflow_claim_key}); a worker whose executor names hold it claims them, and only such a worker.
     */
    public static String claimKey(String handler) {
        return EXECUTOR + ":" + handler;
    }

    /** The handler a payload names, or null when it names none (not a string): for display, never for validation. */
    public static String handlerOf(Map<String, Object> payload) {
        return payload != null && payload.get("handler") instanceof String name ? name : null;
    }
}
