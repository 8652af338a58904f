package io.forgeflow.admin.fx;

import io.forgeflow.admin.support.Ticker;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.application.Platform;
import javafx.util.Duration;

/** A {@link Ticker} on a JavaFX {@link Timeline}: actions run on the FX thread and never overlap each other. */
public final class FxTicker implements Ticker {

    @Override
    public Cancellable every(java.time.Duration period, Runnable action) {
        Timeline timeline = new Timeline(new KeyFrame(Duration.millis(period.toMillis()), e -> action.run()));
        timeline.setCycleCount(Timeline.INDEFINITE);
        if (Platform.isFxApplicationThread()) {
            timeline.play();
        } else {
            Platform.runLater(timeline::play);
        }
        return () -> {
            if (Platform.isFxApplicationThread()) {
                timeline.stop();
            } else {
                Platform.runLater(timeline::stop);
            }
        };
    }
}
