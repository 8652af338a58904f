package io.forgeflow.domain.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Hides secrets in the payloads the API shows: the value of every sensitive header in a payload's {@code headers}
 * object (the http executor's) becomes {@code "***"}. Sensitive: {@code Authorization}, {@code Proxy-Authorization},
 * {@code Cookie}, {@code X-Api-Key}, and any name containing {@code token}, {@code secret}, {@code key},
 * {@code password}, {@code auth}, {@code cookie}, {@code session} or {@code credential}, in any case.
 *
 * <p>Only what is shown is redacted: the stored payload keeps the real values, which the executor needs and which an
 * idempotent replay is compared with. An edit that sends a payload back as it was read keeps them
 * ({@link #restore}): the mask, as the value of a sensitive header, stands for the stored value.
 */
public final class PayloadRedaction {
    public static final String MASK = "***";
    private static final Set<String> NAMES = Set.of("authorization", "proxy-authorization", "cookie", "x-api-key");
    private static final List<String> PARTS = List.of("token", "secret", "key", "password", "auth", "cookie",
            "session", "credential");

    private PayloadRedaction() {
    }

    /** The payload as it may be shown: a copy with sensitive header values masked (the same map when none is). */
    public static Map<String, Object> redact(Map<String, Object> payload) {
        if (payload == null || !(payload.get("headers") instanceof Map<?, ?> headers)) {
            return payload;
        }
        Map<String, Object> shown = new LinkedHashMap<>();
        boolean masked = false;
        for (Map.Entry<?, ?> header : headers.entrySet()) {
            String name = String.valueOf(header.getKey());
            if (isSensitive(name) && header.getValue() != null) {
                shown.put(name, MASK);
                masked = true;
            } else {
                shown.put(name, header.getValue());
            }
        }
        if (!masked) {
            return payload;
        }
        Map<String, Object> copy = new LinkedHashMap<>(payload);
        copy.put("headers", shown);
        return copy;
    }

    public static boolean isSensitive(String headerName) {
        String name = headerName.toLowerCase(Locale.ROOT);
        if (NAMES.contains(name)) {
            return true;
        }
        for (String part : PARTS) {
            if (name.contains(part)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The payload of an edit with every sensitive header whose value is the mask given the stored job's value of that
     * header (the same name, in any case); other values, and every header left out, as sent.
     *
     * @throws io.forgeflow.domain.error.ValidationException naming {@code payload.headers.<name>} when the mask stands
     *                                                       for a header the stored job does not have
     */
    public static Map<String, Object> restore(Map<String, Object> sent, Map<String, Object> stored) {
        if (sent == null || !(sent.get("headers") instanceof Map<?, ?> headers) || !headers.containsValue(MASK)) {
            return sent;
        }
        Map<?, ?> before = stored != null && stored.get("headers") instanceof Map<?, ?> h ? h : Map.of();
        Map<String, Object> restored = new LinkedHashMap<>();
        for (Map.Entry<?, ?> header : headers.entrySet()) {
            String name = String.valueOf(header.getKey());
            Object value = header.getValue();
            if (MASK.equals(value) && isSensitive(name)) {
                value = storedValue(before, name);
                if (value == null) {
                    throw new io.forgeflow.domain.error.ValidationException("payload.headers." + name, "payload.headers."
                            + name + " is \"" + MASK + "\", the mask of a secret this job does not have: send the "
                            + "header's value");
                }
            }
            restored.put(name, value);
        }
        Map<String, Object> copy = new LinkedHashMap<>(sent);
        copy.put("headers", restored);
        return copy;
    }

    private static Object storedValue(Map<?, ?> headers, String name) {
        Object exact = headers.get(name);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<?, ?> header : headers.entrySet()) {
            if (String.valueOf(header.getKey()).equalsIgnoreCase(name) && header.getValue() != null) {
                return header.getValue();
            }
        }
        return null;
    }
}
