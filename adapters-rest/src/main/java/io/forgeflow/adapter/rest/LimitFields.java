package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.queue.RateLimit;

import java.math.BigInteger;
import java.util.Map;
import java.util.Set;

/** The fields a queue's and a tenant's limits share in a request body: whole numbers and {@code rate_limit}. */
final class LimitFields {
    private static final Set<String> RATE_FIELDS = Set.of("count", "per_seconds");

    private LimitFields() {
    }

    /** {@code rate_limit}: {@code {"count": c, "per_seconds": s}}, or null to clear it. */
    @SuppressWarnings("unchecked")
    static RateLimit rate(Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map)) {
            throw new ValidationException("rate_limit", "rate_limit must be an object such as "
                    + "{\"count\": 100, \"per_seconds\": 60}, or null to clear it");
        }
        Map<String, Object> m = (Map<String, Object>) value;
        for (String key : m.keySet()) {
            if (!RATE_FIELDS.contains(key)) {
                throw new ValidationException("rate_limit." + JsonBody.shorten(key), "unknown field '"
                        + JsonBody.shorten(key) + "' in rate_limit: give count and per_seconds, e.g. "
                        + "{\"count\": 100, \"per_seconds\": 60}");
            }
        }
        if (!m.containsKey("count") || !m.containsKey("per_seconds")) {
            throw new ValidationException(m.containsKey("count") ? "rate_limit.per_seconds" : "rate_limit.count",
                    "rate_limit needs both count and per_seconds, e.g. {\"count\": 100, \"per_seconds\": 60}");
        }
        int count = whole(m.get("count"), "rate_limit.count", 1, RateLimit.MAX_COUNT, null);
        int per = whole(m.get("per_seconds"), "rate_limit.per_seconds", 1, RateLimit.MAX_PER_SECONDS, null);
        return new RateLimit(count, per);
    }

    /**
     * A whole number from {@code min} to {@code max}.
     *
     * @param nullMeans what a null stands for ("1", "no limit"), said in every error; null when the field is required
     */
    static Integer whole(Object v, String field, int min, int max, String nullMeans) {
        String ifNull = nullMeans == null ? "" : ", or null for " + nullMeans;
        if (v == null) {
            if (nullMeans != null) {
                return null;
            }
            throw new ValidationException(field, field + " is required: a whole number from " + min + " to " + max);
        }
        if (v instanceof Integer i) {
            if (i < min || i > max) {
                throw new ValidationException(field, field + " must be between " + min + " and " + max + ifNull
                        + ", was " + i);
            }
            return i;
        }
        if (v instanceof Long || v instanceof BigInteger) {
            throw new ValidationException(field, field + " must be between " + min + " and " + max + ifNull
                    + ", was " + JsonBody.shorten(v.toString()));
        }
        throw new ValidationException(field, field + " must be a whole number from " + min + " to " + max + ifNull
                + ", not " + JobSubmission.kind(v));
    }
}
