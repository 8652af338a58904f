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

/**
 * Puts {@code /metrics} behind its own bearer token ({@code FORGEFLOW_METRICS_TOKEN}, plain or
 * {@code sha256:<hex>}), for a Prometheus that scrapes with {@code authorization: {credentials: ...}}. Without the
 * token: 401 in the API's error shape, with {@code WWW-Authenticate: Bearer}. Compared like the API tokens, in
 * constant time over SHA-256 digests. Map it to {@code /metrics} only.
 */
public final class MetricsTokenFilter implements Filter {
    /** The variable named in errors. */
    public static final String VARIABLE = "FORGEFLOW_METRICS_TOKEN";
    private final ApiTokens token;

    /**
     * @param token the token, or {@code sha256:<64 hex digits>} of it
     * @throws IllegalArgumentException naming {@value #VARIABLE} when it is blank or a malformed digest
     */
    public MetricsTokenFilter(String token) {
        if (token == null || token.isBlank() || token.contains(",")) {
            throw new IllegalArgumentException(VARIABLE + " must be one token (or sha256:<64 hex digits> of it), "
                    + "without commas");
        }
        try {
            this.token = ApiTokens.parse(List.of("read:" + token.strip()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(VARIABLE + " has a sha256: digest that is not 64 hexadecimal digits: "
                    + "write sha256:<the output of printf %s \"$TOKEN\" | sha256sum>");
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletRequest http = (HttpServletRequest) request;
        List<String> headers = Collections.list(http.getHeaders("Authorization"));
        String presented = headers.size() == 1 ? BearerTokenAuthFilter.bearer(headers.get(0)) : null;
        if (token.authenticate(presented).isPresent()) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletResponse out = (HttpServletResponse) response;
        out.setHeader("WWW-Authenticate", BearerTokenAuthFilter.PREFIX + " realm=\"" + BearerTokenAuthFilter.REALM
                + "\"" + (headers.isEmpty() ? "" : ", error=\"invalid_token\""));
        ErrorBody.write(out, 401, headers.isEmpty()
                ? "/metrics needs the metrics token: send \"Authorization: Bearer <token>\" (" + VARIABLE + ")"
                : "the metrics token is not valid (" + VARIABLE + ")", null);
    }
}
