package io.forgeflow.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The web dashboard's files, read from this module's jar ({@code io/forgeflow/dashboard/}): a page, a script, a style
 * sheet and an icon that talk to the REST API from the browser. Whoever serves them (the node) maps each URL path to a
 * {@link File}; this module knows no server and no other ForgeFlow module.
 */
public final class DashboardFiles {
    /** Where the files lie on the classpath. */
    public static final String RESOURCES = "io/forgeflow/dashboard/";

    /** One file: its bytes and the Content-Type to serve it with. */
    public record File(String name, byte[] bytes, String contentType) {
    }

    private DashboardFiles() {
    }

    /**
     * Every file by the URL path it is served at: {@code /} (the page) and {@code /ui/app.js}, {@code /ui/app.css},
     * {@code /ui/icon.svg}, the paths index.html refers to.
     *
     * @throws IllegalStateException when a file is missing from the classpath (a broken jar fails at start)
     */
    public static Map<String, File> byPath() {
        Map<String, File> files = new LinkedHashMap<>();
        files.put("/", load("index.html", "text/html; charset=utf-8"));
        files.put("/ui/app.js", load("app.js", "text/javascript; charset=utf-8"));
        files.put("/ui/app.css", load("app.css", "text/css; charset=utf-8"));
        files.put("/ui/icon.svg", load("icon.svg", "image/svg+xml"));
        return Map.copyOf(files);
    }

    private static File load(String name, String contentType) {
        try (InputStream in = DashboardFiles.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard file " + RESOURCES + name + " is missing from the classpath");
            }
            return new File(name, in.readAllBytes(), contentType);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard file " + RESOURCES + name, e);
        }
    }
}
