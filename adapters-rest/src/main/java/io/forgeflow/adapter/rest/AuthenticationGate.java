package io.forgeflow.adapter.rest;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The 401 of {@link BearerTokenAuthFilter}, given in front of everything else for requests under {@code /api/} that
 * may carry a body (every method but GET, HEAD and OPTIONS): no token, a malformed header or a token that matches none is answered at
 * once, before any other filter, before Jersey, and before anything of the body is read; the connection is then
 * closed (the body stays unread). A flood of tokenless submissions costs the node one header check each. The Jersey
 * filter still decides everything else (scopes, GET routes).
 */
final class AuthenticationGate implements Filter {
    private final ApiTokens tokens;

    AuthenticationGate(ApiTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)) {
            chain.doFilter(request, response);
            return;
        }
        String method = http.getMethod().toUpperCase(Locale.ROOT);
        String path = path(http);
        if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS") || !underApi(path)
                || RouteScopes.required(method, path).isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        List<String> headers = Collections.list(http.getHeaders("Authorization"));
        String token = headers.size() == 1 ? BearerTokenAuthFilter.bearer(headers.get(0)) : null;
        String refusal = headers.isEmpty() ? BearerTokenAuthFilter.missing(BearerTokenAuthFilter.tokenInQuery(
                http.getQueryString())) : token == null ? BearerTokenAuthFilter.MALFORMED
                : tokens.authenticate(token).isEmpty() ? BearerTokenAuthFilter.INVALID : null;
        if (refusal == null) {
            chain.doFilter(request, response);
            return;
        }
        out.setHeader("WWW-Authenticate", BearerTokenAuthFilter.challenge(!headers.isEmpty()));
        if (http.getContentLengthLong() != 0) {
            out.setHeader("Connection", "close"); // the body is never read
        }
        ErrorBody.write(out, 401, refusal, null);
    }

    /** Whether Jersey serves the path's API ({@code /api/...}); the dashboard's and servlets' paths are theirs. */
    private static boolean underApi(String path) {
        String p = path.replaceAll("/{2,}", "/");
        return p.equals("/api") || p.startsWith("/api/");
    }

    /** The decoded path under the context, as Jersey matches it. */
    private static String path(HttpServletRequest http) {
        String servlet = http.getServletPath();
        String info = http.getPathInfo();
        return (servlet == null ? "" : servlet) + (info == null ? "" : info);
    }
}
