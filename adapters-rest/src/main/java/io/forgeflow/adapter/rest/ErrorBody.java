package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one error shape of the API: {@code {"error": "what is wrong and how to fix it", "field": "cron_expr",
 * "code": "validation_failed"}}, {@code field} only when one field is at fault. {@code code} is on every error: a
 * stable, machine-readable reason ({@link ErrorCodes}), the status's own unless the caller gives a finer one. Serialized
 * here with a private mapper, so an error can always be written, whatever JSON provider the server registers and
 * whatever state it is in.
 */
final class ErrorBody {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_MESSAGE_CHARS = 2_000;

    private ErrorBody() {
    }

    /** The error of an HTTP {@code status}, with the status's code. */
    static String json(int status, String error, String field) {
        return json(error, field, null, ErrorCodes.of(status), null);
    }

    /**
     * With a machine-readable {@code code} (e.g. {@code unique_conflict}; never null: {@link ErrorCodes#of} gives a
     * status's) and the {@code job_id} at stake, when given.
     */
    static String json(String error, String field, String errorId, String code, String jobId) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("error", clip(error == null || error.isBlank() ? "request failed" : error));
        if (field != null) {
            body.put("field", clip(field));
        }
        if (errorId != null) {
            body.put("error_id", errorId);
        }
        body.put("code", code == null ? ErrorCodes.BAD_REQUEST : code);
        if (jobId != null) {
            body.put("job_id", jobId);
        }
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            return "{\"error\":\"request failed\"}";
        }
    }

    static Response response(int status, String error, String field) {
        return response(status, error, field, ErrorCodes.of(status));
    }

    /** An error with a code finer than its status's ({@code idempotency_conflict}, {@code job_running}). */
    static Response response(int status, String error, String field, String code) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(json(error, field, null, code, null)).build();
    }

    /** Writes an error straight to the servlet response (filters answer before Jersey sees the request). */
    static void write(HttpServletResponse response, int status, String error, String field) throws IOException {
        byte[] bytes = json(status, error, field).getBytes(StandardCharsets.UTF_8);
        response.resetBuffer();
        response.setStatus(status);
        response.setContentType(MediaType.APPLICATION_JSON);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
        response.flushBuffer();
    }

    private static String clip(String s) {
        return s.length() <= MAX_MESSAGE_CHARS ? s : s.substring(0, MAX_MESSAGE_CHARS) + "…";
    }
}
