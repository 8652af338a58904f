package io.forgeflow.server;

import io.dropwizard.core.setup.Environment;
import io.forgeflow.dashboard.DashboardFiles;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The web dashboard: {@code GET /} is its page and {@code /ui/*} its script, style and icon, plain files from the
 * {@code dashboard} module's jar ({@link DashboardFiles}, {@code io/forgeflow/dashboard/}) that talk to the REST API from the browser. A servlet beside Jersey, mapped
 * to the context root exactly ({@code ""}) and to {@code /ui/*}, so that {@code /api}, {@code /metrics},
 * {@code /healthz} and {@code /readyz} route as before.
 *
 * <p>The files hold no data, so they are served without a token; the page asks for one when the API answers 401.
 * Every answer carries a Content-Security-Policy that allows scripts, styles and connections to this origin only and
 * no inline script, so even a server-provided text that slipped into markup could not run. The files are read once,
 * at start (a jar without them fails at start, not at the first visit), and revalidated by ETag on every visit so that
 * an upgraded node serves its new page at once.
 */
final class DashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

    private final Map<String, Asset> assets;

    DashboardServlet() {
        this.assets = DashboardFiles.byPath().entrySet().stream()
                .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, file -> asset(file.getValue())));
    }

    /** Serves the dashboard on this node's application port: {@code /} and {@code /ui/*}. */
    static void register(Environment environment) {
        environment.servlets().addServlet("forgeflow-dashboard", new DashboardServlet()).addMapping("", "/ui/*");
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        Asset asset = assets.get(path.isEmpty() ? "/" : path);
        if (asset == null) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Referrer-Policy", "no-referrer");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("ETag", asset.etag());
        if (asset.etag().equals(request.getHeader("If-None-Match"))) {
            response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            return;
        }
        response.setContentType(asset.type());
        response.setContentLength(asset.bytes().length);
        response.getOutputStream().write(asset.bytes());
    }

    private static Asset asset(DashboardFiles.File file) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(file.bytes());
            return new Asset(file.bytes(), file.contentType(), "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Asset(byte[] bytes, String type, String etag) {
    }
}
