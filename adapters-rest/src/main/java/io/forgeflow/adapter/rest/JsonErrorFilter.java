package io.forgeflow.adapter.rest;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import java.io.IOException;

/**
 * Turns {@code sendError} by anything behind it (Dropwizard's allowed-methods filter answering TRACE with 405, a
 * body-less error status from Jersey) into the API's JSON error instead of the container's HTML error page.
 *
 * <p>Register it first, in front of the other filters and Jersey (a servlet filter on {@code /*}).
 */
public final class JsonErrorFilter implements Filter {

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        chain.doFilter(request, new JsonErrors((HttpServletRequest) request, (HttpServletResponse) response));
    }

    /** The error message for a status with no better one. */
    static String messageFor(int status, HttpServletRequest request) {
        switch (status) {
            case 400:
                return "malformed request: check the path, the query string and the headers";
            case 401:
                return "authentication required: send \"Authorization: Bearer <token>\"";
            case 403:
                return "forbidden: this token lacks the scope the route needs";
            case 404:
                return "no such resource: " + JsonBody.shorten(request.getRequestURI());
            case 405:
                return "method " + JsonBody.shorten(request.getMethod()) + " is not allowed on "
                        + JsonBody.shorten(request.getRequestURI());
            case 413:
                return ApiException.tooLarge(BodyLimitFilter.MAX_BODY_BYTES).getMessage();
            case 415:
                return "unsupported content type: send the body as JSON with \"Content-Type: application/json\"";
            default:
                return status >= 500 ? "internal server error: retry later" : "request refused (HTTP " + status + ")";
        }
    }

    private static final class JsonErrors extends HttpServletResponseWrapper {
        private final HttpServletRequest request;

        JsonErrors(HttpServletRequest request, HttpServletResponse response) {
            super(response);
            this.request = request;
        }

        @Override
        public void sendError(int status) throws IOException {
            sendError(status, null);
        }

        @Override
        public void sendError(int status, String message) throws IOException {
            if (isCommitted()) {
                super.sendError(status, message);
                return;
            }
            // container messages are terse ("Method Not Allowed"); ours say what to do
            ErrorBody.write((HttpServletResponse) getResponse(), status, messageFor(status, request), null);
        }
    }
}
