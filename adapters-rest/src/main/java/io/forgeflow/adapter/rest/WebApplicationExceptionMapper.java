package io.forgeflow.adapter.rest;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

import java.util.Set;
import java.util.TreeSet;

/**
 * Jersey's own refusals, as API errors: 401 and 403 (should anything but {@link BearerTokenAuthFilter}, which
 * answers itself, raise them), no such route 404, wrong method 405 (with {@code Allow}), unsupported
 * content type 415, unacceptable {@code Accept} 406, a malformed request 400. A 5xx that Jersey raises is
 * treated as unexpected (logged with an error id).
 */
public final class WebApplicationExceptionMapper implements ExceptionMapper<WebApplicationException> {
    @Context
    private UriInfo uriInfo;
    @Context
    private Request request;

    @Override
    public Response toResponse(WebApplicationException e) {
        Response original = e.getResponse();
        int status = original == null ? 500 : original.getStatus();
        if (status < 400) {
            return original;
        }
        if (status >= 500) {
            return new UnexpectedExceptionMapper().toResponse(e);
        }
        switch (status) {
            case 404:
                return ErrorBody.response(404, "no such resource: " + path() + " (the API serves /api/jobs, /api/runs, "
                        + "/api/stats, /api/nodes, /healthz and /readyz)", null);
            case 405: {
                Set<String> allowed = new TreeSet<>(original.getAllowedMethods());
                Response.ResponseBuilder r = Response.fromResponse(
                        ErrorBody.response(405, "method " + method() + " is not allowed on " + path()
                                + (allowed.isEmpty() ? "" : "; use " + String.join(" or ", allowed)), null));
                if (!allowed.isEmpty()) {
                    r.header(HttpHeaders.ALLOW, String.join(", ", allowed));
                }
                return r.build();
            }
            case 401:
                return ErrorBody.response(401, "authentication required: send \"Authorization: Bearer <token>\"", null);
            case 403:
                return ErrorBody.response(403, "this token may not do that: use a token with the scope the route needs",
                        null);
            case 406:
                return ErrorBody.response(406, "this API answers only application/json: send \"Accept: application/json\" "
                        + "or no Accept header", null);
            case 415:
                return ErrorBody.response(415, "unsupported content type: send the body as JSON with "
                        + "\"Content-Type: application/json\"", null);
            case 400:
                return ErrorBody.response(400, "malformed request" + detail(e), null);
            default:
                String reason = original.getStatusInfo() == null ? "request refused" : original.getStatusInfo().getReasonPhrase();
                return ErrorBody.response(status, reason == null ? "request refused" : reason.toLowerCase(java.util.Locale.ROOT), null);
        }
    }

    private String path() {
        try {
            return "/" + uriInfo.getPath();
        } catch (RuntimeException e) {
            return "this path";
        }
    }

    private String method() {
        try {
            return request.getMethod();
        } catch (RuntimeException e) {
            return "this method";
        }
    }

    private static String detail(WebApplicationException e) {
        String message = e.getMessage();
        if (message == null || message.startsWith("HTTP 400")) {
            return ": check the path, the query string and the headers";
        }
        return ": " + message;
    }
}
