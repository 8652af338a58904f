package io.forgeflow.adapter.rest;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What a web page open in the operator's browser may not do to a node (SECURITY.md, "a web page in your browser"):
 *
 * <ul>
 *   <li><b>Origin:</b> a state-changing request (POST, PUT, PATCH, DELETE) whose {@code Origin} is present and is
 *       neither the node's own origin (the scheme, host and port the request reached it by) nor one of
 *       {@value #ORIGINS_VARIABLE}, or whose {@code Sec-Fetch-Site} is {@code cross-site}, is refused with 403.
 *       Requests without {@code Origin} (curl, the CLI, the client library, the desktop) pass: browsers always send
 *       it on cross-origin writes, so its absence means no page sent the request.</li>
 *   <li><b>Host</b> (DNS rebinding): when hosts are restricted (a node without API tokens, or with
 *       {@value #HOSTS_VARIABLE} set), a request whose {@code Host} is not a loopback name or address
 *       ({@code localhost}, 127.0.0.0/8, {@code [::1]}) nor one of {@value #HOSTS_VARIABLE} is refused with 421,
 *       reads included: a page on a name that resolves to 127.0.0.1 is same-origin to the browser, so only the
 *       name it asked for gives it away.</li>
 * </ul>
 *
 * Pure: {@link #check} decides from the request's parts; {@link BrowserDefenceFilter} applies it in front of
 * everything else.
 */
public final class BrowserDefence {
    /** The setting that lists extra origins allowed to change things, e.g. {@code https://ops.example.com}. */
    public static final String ORIGINS_VARIABLE = "FORGEFLOW_ALLOWED_ORIGINS";
    /** The setting that lists extra host names the node answers to, e.g. {@code forgeflow.internal}. */
    public static final String HOSTS_VARIABLE = "FORGEFLOW_ALLOWED_HOSTS";
    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final Set<String> allowedOrigins;
    private final Set<String> allowedHosts;
    private final boolean restrictHosts;

    private BrowserDefence(Set<String> allowedOrigins, Set<String> allowedHosts, boolean restrictHosts) {
        this.allowedOrigins = Set.copyOf(allowedOrigins);
        this.allowedHosts = Set.copyOf(allowedHosts);
        this.restrictHosts = restrictHosts;
    }

    /** A refusal: the status, the header at fault and a message that says how to allow the request. */
    public record Refusal(int status, String header, String message) {
    }

    /**
     * The defence of a port.
     *
     * @param allowedOrigins {@value #ORIGINS_VARIABLE}: {@code scheme://host[:port]} entries (commas also split)
     * @param allowedHosts   {@value #HOSTS_VARIABLE}: host names or addresses, with or without a port (ignored)
     * @param hostsOpen      whether any host may be named when {@code allowedHosts} is empty: true on a port whose
     *                       every request needs a bearer token (the API with tokens), false otherwise
     * @throws IllegalArgumentException naming the variable and the entry when an entry is malformed
     */
    public static BrowserDefence of(Collection<String> allowedOrigins, Collection<String> allowedHosts,
                                    boolean hostsOpen) {
        Set<String> origins = new LinkedHashSet<>();
        for (String entry : entries(allowedOrigins)) {
            String origin = normalOrigin(entry);
            if (origin == null) {
                throw new IllegalArgumentException(ORIGINS_VARIABLE + " entry '" + JsonBody.shorten(entry)
                        + "' is not an origin: write scheme://host[:port] without a path, e.g. "
                        + "https://ops.example.com or http://localhost:3000");
            }
            origins.add(origin);
        }
        Set<String> hosts = new LinkedHashSet<>();
        for (String entry : entries(allowedHosts)) {
            String host = hostOf(entry);
            if (host == null || host.isEmpty() || host.contains("/")) {
                throw new IllegalArgumentException(HOSTS_VARIABLE + " entry '" + JsonBody.shorten(entry)
                        + "' is not a host: write a name or address such as forgeflow.internal or 10.0.0.5");
            }
            hosts.add(host);
        }
        return new BrowserDefence(origins, hosts, !hostsOpen || !hosts.isEmpty());
    }

    /** Whether requests with a foreign {@code Host} are refused on this port. */
    public boolean restrictsHosts() {
        return restrictHosts;
    }

    /**
     * The refusal of a request, or empty when it may proceed.
     *
     * @param method       the HTTP method
     * @param scheme       {@code http} or {@code https}, as the node serves the request
     * @param host         the {@code Host} header (null when absent)
     * @param port         the port the request was served on, for a {@code Host} without one
     * @param origin       the {@code Origin} header, or null
     * @param secFetchSite the {@code Sec-Fetch-Site} header, or null
     */
    public Optional<Refusal> check(String method, String scheme, String host, int port, String origin,
                                   String secFetchSite) {
        String hostName = host == null ? null : hostOf(host);
        if (restrictHosts && hostName != null && !isLoopback(hostName) && !allowedHosts.contains(hostName)) {
            return Optional.of(new Refusal(421, "Host", "this node does not answer to the host name '"
                    + JsonBody.shorten(hostName) + "' (Host header): without API tokens it answers loopback names "
                    + "only (localhost, 127.0.0.1, [::1]), so that a web page on a rebound DNS name cannot reach it; "
                    + "to serve this name, list it in " + HOSTS_VARIABLE + " (e.g. " + HOSTS_VARIABLE + "="
                    + JsonBody.shorten(hostName) + ")"));
        }
        if (method == null || !WRITES.contains(method.toUpperCase(Locale.ROOT))) {
            return Optional.empty();
        }
        if (secFetchSite != null && secFetchSite.strip().equalsIgnoreCase("cross-site")) {
            return Optional.of(new Refusal(403, "Sec-Fetch-Site", "refused: this request was sent by a web page "
                    + "of another site (Sec-Fetch-Site: cross-site), and pages may not change anything on this node; "
                    + "send it from a client that is not a browser page, or serve the page from an origin listed in "
                    + ORIGINS_VARIABLE));
        }
        if (origin == null) {
            return Optional.empty();
        }
        String own = host == null ? null : normalOrigin(scheme + "://" + withPort(host.strip(), port));
        String presented = normalOrigin(origin);
        if (presented != null && (presented.equals(own) || allowedOrigins.contains(presented))) {
            return Optional.empty();
        }
        return Optional.of(new Refusal(403, "Origin", "refused: this request comes from the web page origin '"
                + JsonBody.shorten(origin.strip()) + "' (Origin header), which is not this node's own origin, and "
                + "pages of other origins may not change anything on this node; to allow that origin, list it in "
                + ORIGINS_VARIABLE + " (e.g. " + ORIGINS_VARIABLE + "=https://ops.example.com)"));
    }

    /** {@code scheme://host[:port]} in lower case, the default port dropped; null when it is not such an origin. */
    static String normalOrigin(String text) {
        if (text == null) {
            return null;
        }
        String t = text.strip().toLowerCase(Locale.ROOT);
        int sep = t.indexOf("://");
        if (sep < 0) {
            return null;
        }
        String scheme = t.substring(0, sep);
        String authority = t.substring(sep + 3);
        if (!scheme.equals("http") && !scheme.equals("https") || authority.isEmpty()
                || authority.contains("/") || authority.contains("@") || authority.contains("?")
                || authority.contains("#")) {
            return null;
        }
        String host = hostOf(authority);
        String portText = portOf(authority);
        if (host == null || host.isEmpty()) {
            return null;
        }
        if (portText != null) {
            if (!portText.matches("[0-9]{1,5}") || Integer.parseInt(portText) > 65535) {
                return null;
            }
            int port = Integer.parseInt(portText);
            boolean defaultPort = scheme.equals("http") ? port == 80 : port == 443;
            return scheme + "://" + host + (defaultPort ? "" : ":" + port);
        }
        return scheme + "://" + host;
    }

    /** The host of {@code host[:port]} or {@code [v6][:port]}, lower case, brackets kept; null when malformed. */
    static String hostOf(String authority) {
        String a = authority.strip().toLowerCase(Locale.ROOT);
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            if (close < 0 || (close + 1 < a.length() && a.charAt(close + 1) != ':')) {
                return null;
            }
            return a.substring(0, close + 1);
        }
        int colon = a.indexOf(':');
        if (colon >= 0 && a.indexOf(':', colon + 1) >= 0) {
            return "[" + a + "]"; // a bare IPv6 address
        }
        String host = colon < 0 ? a : a.substring(0, colon);
        return host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    }

    private static String portOf(String authority) {
        String a = authority.strip();
        int close = a.lastIndexOf(']');
        int colon = a.lastIndexOf(':');
        if (colon < 0 || colon < close || (close < 0 && a.indexOf(':') != colon)) {
            return null;
        }
        return a.substring(colon + 1);
    }

    private static String withPort(String host, int port) {
        return portOf(host) != null || port <= 0 ? host : host + ":" + port;
    }

    private static final java.util.regex.Pattern LOOPBACK_V4 =
            java.util.regex.Pattern.compile("127(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");

    /** {@code localhost}, an IPv4 address in 127.0.0.0/8, or the IPv6 loopback; no DNS. */
    static boolean isLoopback(String host) {
        if (host.equals("localhost")) {
            return true;
        }
        if (LOOPBACK_V4.matcher(host).matches()) {
            return true;
        }
        return host.equals("[::1]") || host.equals("[0:0:0:0:0:0:0:1]") || host.equals("[::ffff:127.0.0.1]");
    }

    private static Set<String> entries(Collection<String> configured) {
        Set<String> out = new LinkedHashSet<>();
        if (configured != null) {
            for (String value : configured) {
                if (value != null) {
                    for (String part : value.split(",")) {
                        if (!part.isBlank()) {
                            out.add(part.strip());
                        }
                    }
                }
            }
        }
        return out;
    }
}
