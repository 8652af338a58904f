package io.forgeflow.admin;

import javafx.application.Application;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;

/** The ForgeFlow operations console. It speaks the REST contract only. */
public class AdminApp extends Application {
    @Override
    public void start(Stage stage) {
        Label title = new Label("ForgeFlow admin");
        title.setId("title");
        Label hint = new Label("Connect to a ForgeFlow node (default http://127.0.0.1:8080).");
        VBox root = new VBox(12, title, hint);
        root.setPadding(new Insets(24));
        stage.setTitle("ForgeFlow admin");
        stage.setScene(new Scene(root, 640, 400));
        stage.show();
    }
}
