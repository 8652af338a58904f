package io.forgeflow.admin;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.ClusterConnector;
import io.forgeflow.admin.cluster.RestClusterClient;
import io.forgeflow.admin.connect.ConnectView;
import io.forgeflow.admin.connect.ConnectionViewModel;
import io.forgeflow.admin.console.ConsoleView;
import io.forgeflow.admin.console.ConsoleViewModel;
import io.forgeflow.admin.fx.FxTicker;
import io.forgeflow.admin.fx.FxUiExecutor;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.LinkOpener;
import io.forgeflow.admin.support.PreferencesSettingsStore;
import io.forgeflow.admin.support.SettingsStore;
import io.forgeflow.admin.support.Times;
import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The ForgeFlow operations console. It speaks the REST contract only. Starts on the connect screen; once connected it
 * shows the console, and returns to the connect screen on Disconnect.
 *
 * <p>Arguments: {@code --server=http://host:8080} fills the URL, {@code --connect} connects at once.
 */
public class AdminApp extends Application {
    private final Settings settings;
    private StackPane root;
    private ConnectionViewModel connection;
    private ConsoleViewModel console;

    /**
     * What the app is built from; tests and the screenshot tour pass their own. {@code links} opens trace links; null
     * means the browser, through JavaFX's HostServices.
     */
    public record Settings(SettingsStore store, ClusterConnector connector, Duration pollInterval, Times times,
                           LinkOpener links) {
        public Settings {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(connector, "connector");
            Objects.requireNonNull(pollInterval, "pollInterval");
            Objects.requireNonNull(times, "times");
        }

        /** Trace links open in the browser. */
        public Settings(SettingsStore store, ClusterConnector connector, Duration pollInterval, Times times) {
            this(store, connector, pollInterval, times, null);
        }

        /** The user's preferences, HTTP to the server, polling every 2 s, the machine's time zone. */
        public static Settings standard() {
            return new Settings(PreferencesSettingsStore.forUser(), RestClusterClient::open, Duration.ofSeconds(2),
                    Times.system());
        }
    }

    public AdminApp() {
        this(Settings.standard());
    }

    public AdminApp(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public void start(Stage stage) {
        Async async = Async.withDaemonPool(new FxUiExecutor());
        connection = new ConnectionViewModel(settings.connector(), settings.store(), async);
        root = new StackPane(new ConnectView(connection));
        root.setId("root");
        connection.connectedProperty().addListener((o, was, client) -> {
            if (client != null) {
                show(client, async);
            } else {
                hideConsole();
            }
        });
        Scene scene = new Scene(root, 1280, 800);
        scene.getStylesheets().add(Objects.requireNonNull(AdminApp.class.getResource("admin.css")).toExternalForm());
        stage.setTitle("ForgeFlow admin");
        stage.setScene(scene);
        stage.show();

        Map<String, String> named = getParameters() == null ? Map.of() : getParameters().getNamed();
        if (named.containsKey("server")) {
            connection.serverUrlProperty().set(named.get("server"));
        }
        if (getParameters() != null && getParameters().getRaw().contains("--connect")) {
            connection.connect();
        }
    }

    private void show(ClusterClient client, Async async) {
        console = new ConsoleViewModel(client, async, new FxTicker(), settings.pollInterval(), settings.times());
        console.traces().setTemplate(connection.traceUrlTemplateProperty().get());
        console.setBoundTenant(connection.boundTenantProperty().get());
        console.traces().setOpener(settings.links() != null ? settings.links() : getHostServices()::showDocument);
        root.getChildren().setAll(new ConsoleView(console, connection::disconnect));
        console.start();
    }

    private void hideConsole() {
        if (console != null) {
            console.stop();
            console = null;
        }
        root.getChildren().setAll(new ConnectView(connection));
    }

    /** Stops live updates and closes the connection. */
    @Override
    public void stop() {
        if (console != null) {
            console.stop();
        }
        if (connection != null && connection.connectedProperty().get() != null) {
            connection.disconnect();
        }
    }

    /** The connect screen's view model (for tests and the screenshot tour). */
    public ConnectionViewModel connection() {
        return connection;
    }

    /** The console's view model while connected, else null. */
    public ConsoleViewModel console() {
        return console;
    }
}
