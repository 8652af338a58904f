package io.forgeflow.adapter.rest;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Optional;

/**
 * Applies a {@link BrowserDefence} to every request of a port, before anything reads the body or runs a task.
 * Register it first on {@code /*}, in front of every other filter, on the API port and on the admin port.
 */
public final class BrowserDefenceFilter implements Filter {
    private final BrowserDefence defence;

    public BrowserDefenceFilter(BrowserDefence defence) {
        this.defence = defence;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletRequest http = (HttpServletRequest) request;
        Optional<BrowserDefence.Refusal> refusal = defence.check(http.getMethod(), http.getScheme(),
                http.getHeader("Host"), http.getLocalPort(), http.getHeader("Origin"), http.getHeader("Sec-Fetch-Site"));
        if (refusal.isPresent()) {
            HttpServletResponse out = (HttpServletResponse) response;
            out.setHeader("Vary", "Origin, Sec-Fetch-Site");
            ErrorBody.write(out, refusal.get().status(), refusal.get().message(), null);
            return;
        }
        chain.doFilter(request, response);
    }
}
