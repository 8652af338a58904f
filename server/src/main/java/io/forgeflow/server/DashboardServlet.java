package io.forgeflow.server;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The web dashboard: {@code GET /} is its page and {@code /ui/*} its script, style and icon, plain files from the jar
 * ({@code io/forgeflow/server/dashboard/}) that talk to the REST API from the browser. A servlet beside Jersey, mapped
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
    static final String RESOURCES = "io/forgeflow/server/dashboard/";
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

    private final Map<String, Asset> assets;

    DashboardServlet() {
        Map<String, Asset> files = new LinkedHashMap<>();
        files.put("/", load("index.html", "text/html; charset=utf-8"));
        files.put("/ui/app.js", load("app.js", "text/javascript; charset=utf-8"));
        files.put("/ui/app.css", load("app.css", "text/css; charset=utf-8"));
        files.put("/ui/icon.svg", load("icon.svg", "image/svg+xml"));
        this.assets = Map.copyOf(files);
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

    private static Asset load(String name, String type) {
        try (InputStream in = DashboardServlet.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard file " + RESOURCES + name + " is missing from the jar");
            }
            byte[] bytes = in.readAllBytes();
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return new Asset(bytes, type, "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard file " + name, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Asset(byte[] bytes, String type, String etag) {
    }
}
