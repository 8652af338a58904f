package io.forgeflow.adapter.rest;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Jetty's error pages as the API's JSON errors. Jetty refuses some requests before any filter or resource sees
 * them: a path with an encoded NUL, a malformed or ambiguous percent-encoding ({@code %zz}, {@code ..%2f}),
 * invalid UTF-8, headers too large. Dropwizard's default error handler answers those with an HTML page; this one
 * answers {@code {"error": "..."}}, whatever the method or {@code Accept} header, and never with a stack trace.
 *
 * <p>The server installs it on the Jetty {@code Server} before it starts, and on the application context.
 */
public final class JsonErrorHandler extends ErrorHandler {

    public JsonErrorHandler() {
        setShowStacks(false);
        setShowCauses(false);
        setShowMessageInTitle(false);
    }

    /** Every method gets a body (the default leaves PUT, DELETE ... without one). */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        byte[] body = ErrorBody.json(code, describe(code, message), null).getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, Integer.toString(body.length));
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** Errors found while parsing the request, before it is a request (a malformed request line or header). */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        return ByteBuffer.wrap(ErrorBody.json(status, describe(status, reason), null).getBytes(StandardCharsets.UTF_8));
    }

    static String describe(int code, String message) {
        String detail = message == null || message.isBlank() || message.equalsIgnoreCase("bad request")
                ? "" : ": " + message.toLowerCase(Locale.ROOT);
        switch (code) {
            case 400:
                return "malformed request" + detail + ". Percent-encode the path and query as UTF-8, and use ids "
                        + "exactly as the API returned them";
            case 401:
                return "authentication required: send \"Authorization: Bearer <token>\"";
            case 403:
                return "forbidden: this token lacks the scope the route needs";
            case 404:
                return "no such resource (the API serves /api/jobs, /api/runs, /api/stats, /api/nodes, /healthz and /readyz)";
            case 405:
                return "method not allowed on this path";
            case 413:
                return ApiException.tooLarge(BodyLimitFilter.MAX_BODY_BYTES).getMessage();
            case 414:
                return "the request URI is too long";
            case 431:
                return "the request headers are too large";
            default:
                return code >= 500 ? "internal server error: retry later" : "request refused (HTTP " + code + ")" + detail;
        }
    }
}
