package io.forgeflow.adapter.rest;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every body is JSON (API.md): a body sent without a {@code Content-Type}, or as
 * {@code application/x-www-form-urlencoded} (what {@code curl -d} sends), or as an {@code application/*+json}
 * type, is presented to Jersey as {@code application/json}. The wrapper also hides the body from
 * {@code getParameter*} (which answer from the query string only), so neither Jetty nor Jersey ever parses a JSON
 * body as a form. A body of any other type on a POST, PUT or PATCH under {@code /api} is refused with 415 and a
 * JSON error.
 *
 * <p>Register it in front of Jersey (a servlet filter on {@code /*}, after {@link BodyLimitFilter}).
 */
public final class JsonContentTypeFilter implements Filter {
    private static final String JSON = "application/json";

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletRequest http = (HttpServletRequest) request;
        String type = http.getContentType();
        String mediaType = type == null ? null : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (mediaType == null) {
            chain.doFilter(hasBody(http) ? new JsonRequest(http) : http, response);
        } else if (mediaType.equals(JSON)) {
            chain.doFilter(http, response);
        } else if (mediaType.equals("application/x-www-form-urlencoded")
                || (mediaType.startsWith("application/") && mediaType.endsWith("+json"))) {
            chain.doFilter(new JsonRequest(http), response);
        } else if (hasBody(http) && isApiWrite(http)) {
            ErrorBody.write((HttpServletResponse) response, 415, "unsupported content type '"
                    + JsonBody.shorten(type) + "': send the body as JSON with \"Content-Type: application/json\"", null);
        } else {
            chain.doFilter(http, response);
        }
    }

    private static boolean hasBody(HttpServletRequest http) {
        return http.getContentLengthLong() > 0 || http.getHeader("Transfer-Encoding") != null;
    }

    private static boolean isApiWrite(HttpServletRequest http) {
        String method = http.getMethod();
        if (!"POST".equals(method) && !"PUT".equals(method) && !"PATCH".equals(method)) {
            return false;
        }
        String uri = http.getRequestURI();
        String context = http.getContextPath();
        String path = uri == null ? "" : context != null && uri.startsWith(context) ? uri.substring(context.length()) : uri;
        return path.equals("/api") || path.startsWith("/api/");
    }

    /** The request as {@code application/json}, with parameters from the query string only. */
    private static final class JsonRequest extends HttpServletRequestWrapper {
        private Map<String, String[]> queryParameters;

        JsonRequest(HttpServletRequest request) {
            super(request);
        }

        @Override
        public String getContentType() {
            return JSON;
        }

        @Override
        public String getHeader(String name) {
            return isContentType(name) ? JSON : super.getHeader(name);
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            return isContentType(name) ? Collections.enumeration(List.of(JSON)) : super.getHeaders(name);
        }

        @Override
        public Enumeration<String> getHeaderNames() {
            List<String> names = new ArrayList<>();
            boolean present = false;
            for (Enumeration<String> e = super.getHeaderNames(); e != null && e.hasMoreElements(); ) {
                String name = e.nextElement();
                present |= isContentType(name);
                names.add(name);
            }
            if (!present) {
                names.add("Content-Type");
            }
            return Collections.enumeration(names);
        }

        @Override
        public String getParameter(String name) {
            String[] values = getParameterMap().get(name);
            return values == null || values.length == 0 ? null : values[0];
        }

        @Override
        public Map<String, String[]> getParameterMap() {
            if (queryParameters == null) {
                queryParameters = Collections.unmodifiableMap(parseQuery(getQueryString()));
            }
            return queryParameters;
        }

        @Override
        public Enumeration<String> getParameterNames() {
            return Collections.enumeration(getParameterMap().keySet());
        }

        @Override
        public String[] getParameterValues(String name) {
            String[] values = getParameterMap().get(name);
            return values == null ? null : values.clone();
        }

        private static boolean isContentType(String name) {
            return "content-type".equalsIgnoreCase(name);
        }

        private static Map<String, String[]> parseQuery(String query) {
            Map<String, List<String>> collected = new LinkedHashMap<>();
            if (query != null && !query.isEmpty()) {
                for (String pair : query.split("&")) {
                    if (pair.isEmpty()) {
                        continue;
                    }
                    int eq = pair.indexOf('=');
                    String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                    String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                    collected.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
                }
            }
            Map<String, String[]> result = new LinkedHashMap<>();
            collected.forEach((k, v) -> result.put(k, v.toArray(new String[0])));
            return result;
        }

        private static String decode(String s) {
            try {
                return URLDecoder.decode(s, StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return s;
            }
        }
    }
}
