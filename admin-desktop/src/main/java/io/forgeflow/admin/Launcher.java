package io.forgeflow.admin;

/** Starts {@link AdminApp} from a plain classpath (a main class that extends Application cannot). */
public final class Launcher {
    private Launcher() {
    }

    public static void main(String[] args) {
        javafx.application.Application.launch(AdminApp.class, args);
    }
}
