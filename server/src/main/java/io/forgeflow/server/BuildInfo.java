package io.forgeflow.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * This build's version (the Maven project version, also the jar manifest's {@code Implementation-Version} that
 * {@code java -jar forgeflow.jar -v} prints) and the git revision it was built from ({@code unknown} when built outside
 * a git checkout). Read once from {@code io/forgeflow/server/build.properties}, which the build writes.
 */
record BuildInfo(String version, String revision) {
    static final String RESOURCE = "io/forgeflow/server/build.properties";
    private static final BuildInfo CURRENT = load();

    static BuildInfo current() {
        return CURRENT;
    }

    private static BuildInfo load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // the defaults below say so
        }
        String manifest = BuildInfo.class.getPackage().getImplementationVersion();
        return new BuildInfo(known(p.getProperty("version"), manifest), known(p.getProperty("revision"), null));
    }

    /** A filtered value, or the fallback when the build did not fill it in. */
    static String known(String value, String fallback) {
        if (value == null || value.isBlank() || value.startsWith("${")) {
            return fallback == null ? "unknown" : fallback;
        }
        return value.trim();
    }
}
