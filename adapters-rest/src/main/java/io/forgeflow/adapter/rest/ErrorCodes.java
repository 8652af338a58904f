package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.ConflictException;

/**
 * The stable {@code code} of every error the API answers (API.md, "Lists and errors"): one per status, and finer ones
 * where a client may act on the difference. Codes are only ever added, never renamed.
 */
final class ErrorCodes {
    static final String BAD_REQUEST = "bad_request";
    static final String UNAUTHORIZED = "unauthorized";
    static final String FORBIDDEN = "forbidden";
    static final String NOT_FOUND = "not_found";
    static final String METHOD_NOT_ALLOWED = "method_not_allowed";
    static final String NOT_ACCEPTABLE = "not_acceptable";
    static final String REQUEST_TIMEOUT = "request_timeout";
    static final String CONFLICT = "conflict";
    static final String IDEMPOTENCY_CONFLICT = ConflictException.IDEMPOTENCY_CONFLICT;
    static final String UNIQUE_CONFLICT = ConflictException.UNIQUE_CONFLICT;
    static final String JOB_RUNNING = ConflictException.JOB_RUNNING;
    static final String PARENT_NOT_SUCCEEDED = "parent_not_succeeded";
    static final String PAYLOAD_TOO_LARGE = "payload_too_large";
    static final String URI_TOO_LONG = "uri_too_long";
    static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";
    static final String MISDIRECTED_REQUEST = "misdirected_request";
    static final String VALIDATION_FAILED = "validation_failed";
    /** A tenant-bound token named another tenant, or used a cluster-wide route (README "Tenants"). */
    static final String TENANT_FORBIDDEN = "tenant_forbidden";
    static final String RATE_LIMITED = "rate_limited";
    static final String HEADERS_TOO_LARGE = "headers_too_large";
    static final String INTERNAL_ERROR = "internal_error";
    static final String UNAVAILABLE = "unavailable";

    private ErrorCodes() {
    }

    /** The code of an HTTP error status; an unlisted 4xx is {@code bad_request}, an unlisted 5xx {@code internal_error}. */
    static String of(int status) {
        switch (status) {
            case 401:
                return UNAUTHORIZED;
            case 403:
                return FORBIDDEN;
            case 404:
                return NOT_FOUND;
            case 405:
                return METHOD_NOT_ALLOWED;
            case 406:
                return NOT_ACCEPTABLE;
            case 408:
                return REQUEST_TIMEOUT;
            case 409:
                return CONFLICT;
            case 413:
                return PAYLOAD_TOO_LARGE;
            case 414:
                return URI_TOO_LONG;
            case 415:
                return UNSUPPORTED_MEDIA_TYPE;
            case 421:
                return MISDIRECTED_REQUEST;
            case 422:
                return VALIDATION_FAILED;
            case 429:
                return RATE_LIMITED;
            case 431:
                return HEADERS_TOO_LARGE;
            case 503:
                return UNAVAILABLE;
            default:
                return status >= 500 ? INTERNAL_ERROR : BAD_REQUEST;
        }
    }
}
