package io.forgeflow.admin.fx;

import io.forgeflow.admin.support.UiExecutor;
import javafx.application.Platform;

/** Hands work to the JavaFX application thread (at once when already on it). */
public final class FxUiExecutor implements UiExecutor {

    @Override
    public void execute(Runnable onUiThread) {
        if (Platform.isFxApplicationThread()) {
            onUiThread.run();
        } else {
            Platform.runLater(onUiThread);
        }
    }
}
