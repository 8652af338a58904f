package io.forgeflow.admin.support;

/**
 * Runs code where view-model state may be touched: the JavaFX application thread in the app, the calling thread in
 * tests ({@link #sameThread()}), so view models are tested without a toolkit.
 */
@FunctionalInterface
public interface UiExecutor {

    void execute(Runnable onUiThread);

    /** Runs at once on the caller's thread: for tests, where there is no UI thread. */
    static UiExecutor sameThread() {
        return Runnable::run;
    }
}
