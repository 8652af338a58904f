package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import okhttp3.Headers;
import okhttp3.HttpUrl;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.forgeflow.adapter.executor.PayloadReader.field;

/**
 * A checked {@code http} payload.
 *
 * @param method         upper case; POST when absent
 * @param body           the JSON value to send, or null for none ({@code "body": null} counts as none)
 * @param expectedStatus the statuses that count as success, or null for any 2xx
 * @param retryOnStatus  the failing statuses worth another attempt ({@link #DEFAULT_RETRY_ON_STATUS} when absent);
 *                       every other failing status is permanent
 */
record HttpPayload(HttpUrl url, String method, Headers headers, Object body, Set<Integer> expectedStatus,
                   Set<Integer> retryOnStatus) {
    static final String URL = "url";
    static final String METHOD = "method";
    static final String HEADERS = "headers";
    static final String BODY = "body";
    static final String EXPECTED_STATUS = "expected_status";
    static final String RETRY_ON_STATUS = "retry_on_status";
    /** Timeouts and overload: 408, 425, 429, 500, 502, 503, 504. */
    static final Set<Integer> DEFAULT_RETRY_ON_STATUS = Set.of(408, 425, 429, 500, 502, 503, 504);

    private static final Set<String> KEYS = Set.of(URL, METHOD, HEADERS, BODY, EXPECTED_STATUS, RETRY_ON_STATUS);
    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD");
    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*):(?!\\d)"); // "localhost:8080" is a host, not a scheme
    private static final int MAX_EXPECTED_STATUSES = 500;

    static HttpPayload parse(Map<String, Object> payload) {
        PayloadReader reader = new PayloadReader("http", payload, KEYS);
        HttpUrl url = url(reader.requiredString(URL, "\"https://example.com/hooks/nightly\""));
        String method = method(reader.optionalString(METHOD, "POST"));
        Headers headers = headers(reader.optionalObject(HEADERS));
        Object body = reader.raw(BODY);
        if (body != null && !allowsBody(method)) {
            throw new ValidationException(field(BODY), "payload.body cannot be sent with " + method
                    + "; drop the body or use POST, PUT, PATCH or DELETE");
        }
        Set<Integer> expected = expectedStatus(reader.optionalList(EXPECTED_STATUS));
        return new HttpPayload(url, method, headers, body, expected, retryOnStatus(reader.optionalList(RETRY_ON_STATUS)));
    }

    /** Redirects are followed for GET and HEAD only: replaying another method elsewhere could repeat a side effect. */
    boolean followsRedirects() {
        return !allowsBody(method);
    }

    boolean isSuccess(int status) {
        return expectedStatus == null ? status >= 200 && status <= 299 : expectedStatus.contains(status);
    }

    /** Whether a failing {@code status} may succeed on another attempt (connection errors and timeouts always may). */
    boolean retries(int status) {
        return retryOnStatus.contains(status);
    }

    private static boolean allowsBody(String method) {
        return !method.equals("GET") && !method.equals("HEAD");
    }

    private static HttpUrl url(String text) {
        HttpUrl url = HttpUrl.parse(text.strip());
        if (url != null) {
            return url;
        }
        Matcher scheme = SCHEME.matcher(text.strip());
        String fix;
        if (!scheme.find()) {
            fix = "must be an absolute URL starting with http:// or https://";
        } else if (!Set.of("http", "https").contains(scheme.group(1).toLowerCase(Locale.ROOT))) {
            fix = "must use http or https, not " + scheme.group(1);
        } else {
            fix = "is not a valid URL: check the host, the port and the escaping";
        }
        throw new ValidationException(field(URL), "payload.url " + fix + ", e.g. https://example.com/hooks/nightly");
    }

    private static String method(String text) {
        String method = text.strip().toUpperCase(Locale.ROOT);
        if (!METHODS.contains(method)) {
            throw new ValidationException(field(METHOD), "payload.method must be one of "
                    + String.join(", ", METHODS) + " (POST when left out)");
        }
        return method;
    }

    /** Names must be HTTP tokens and values printable ASCII; values are never echoed, as they may be secret. */
    private static Headers headers(Map<?, ?> object) {
        Headers.Builder headers = new Headers.Builder();
        if (object == null) {
            return headers.build();
        }
        for (Map.Entry<?, ?> entry : object.entrySet()) {
            String name = String.valueOf(entry.getKey());
            if (!(entry.getValue() instanceof String)) {
                throw new ValidationException(field(HEADERS), "payload.headers must map names to strings; the value "
                        + "of " + name + " is " + PayloadReader.jsonType(entry.getValue()));
            }
            try {
                new Headers.Builder().add(name, "x");
            } catch (IllegalArgumentException e) {
                throw new ValidationException(field(HEADERS), "payload.headers has an invalid header name '"
                        + printable(name) + "': use letters, digits and - only");
            }
            try {
                headers.add(name, (String) entry.getValue());
            } catch (IllegalArgumentException e) {
                throw new ValidationException(field(HEADERS), "payload.headers: the value of " + name
                        + " has characters not allowed in an HTTP header (control characters or non-ASCII)");
            }
        }
        return headers.build();
    }

    private static Set<Integer> expectedStatus(List<?> list) {
        if (list == null) {
            return null;
        }
        String field = field(EXPECTED_STATUS);
        if (list.isEmpty() || list.size() > MAX_EXPECTED_STATUSES) {
            throw new ValidationException(field, field + " must list 1 to " + MAX_EXPECTED_STATUSES
                    + " statuses, e.g. [200, 404]; leave it out to accept any 2xx");
        }
        Set<Integer> statuses = new LinkedHashSet<>();
        for (Object value : list) {
            statuses.add((int) PayloadReader.wholeNumber(field, value, 100, 599));
        }
        return Set.copyOf(statuses);
    }

    private static Set<Integer> retryOnStatus(List<?> list) {
        if (list == null) {
            return DEFAULT_RETRY_ON_STATUS;
        }
        String field = field(RETRY_ON_STATUS);
        if (list.size() > MAX_EXPECTED_STATUSES) {
            throw new ValidationException(field, field + " must list at most " + MAX_EXPECTED_STATUSES
                    + " statuses, e.g. [429, 503]; [] makes every failing status permanent; leave it out for the "
                    + "default (408, 425, 429, 500, 502, 503, 504)");
        }
        Set<Integer> statuses = new LinkedHashSet<>();
        for (Object value : list) {
            statuses.add((int) PayloadReader.wholeNumber(field, value, 100, 599));
        }
        return Set.copyOf(statuses);
    }

    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(100).forEach(c -> {
            if (c >= 0x20 && c < 0x7f) {
                out.appendCodePoint(c);
            } else {
                out.append(String.format("\\u%04x", c));
            }
        });
        return out.toString();
    }
}
