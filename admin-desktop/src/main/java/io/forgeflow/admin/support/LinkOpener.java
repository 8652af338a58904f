package io.forgeflow.admin.support;

/** Opens a URL in the operator's browser: JavaFX's HostServices in the app, a recorder in tests. */
@FunctionalInterface
public interface LinkOpener {

    void open(String url);
}
