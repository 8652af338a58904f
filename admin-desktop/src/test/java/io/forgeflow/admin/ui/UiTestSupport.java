package io.forgeflow.admin.ui;

import io.forgeflow.admin.AdminApp;
import io.forgeflow.admin.cluster.RestClusterClient;
import io.forgeflow.admin.support.InMemorySettingsStore;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.ScriptedServer;
import javafx.scene.Node;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableView;
import javafx.scene.control.TextInputControl;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives the real app (real views, view models, REST client and HTTP) with real clicks, headless on Monocle, against
 * a {@link ScriptedServer} on loopback. Waits on conditions with deadlines, never sleeps.
 */
@ExtendWith(ApplicationExtension.class)
abstract class UiTestSupport {
    static final long DEADLINE_SECONDS = 15;
    /** The overview polls this often in tests (2 s in the app); faster polling only burns the CPU the tests need. */
    static final Duration POLL = Duration.ofSeconds(1);

    Stage stage;
    ScriptedServer server;
    AdminApp app;
    final InMemorySettingsStore settings = new InMemorySettingsStore();
    /** Links the app opened in the browser (trace links). */
    final java.util.List<String> openedLinks = new java.util.concurrent.CopyOnWriteArrayList<>();
    int clicks;

    @BeforeEach
    void primaryStage() throws java.util.concurrent.TimeoutException {
        stage = FxToolkit.registerPrimaryStage();
    }

    /** Starts a seeded server (scripted further by script) and the app on its connect screen, URL filled in. */
    void open(Consumer<ScriptedServer> script) {
        server = new ScriptedServer().seedDemo();
        script.accept(server);
        openApp(server.url());
    }

    /** Starts the app on its connect screen with serverUrl filled in. */
    void openApp(String serverUrl) {
        settings.put("serverUrl", serverUrl);
        app = new AdminApp(new AdminApp.Settings(settings, RestClusterClient::open, POLL,
                new Times(ZoneId.of("UTC"), Clock.systemUTC()), openedLinks::add));
        onFx(() -> {
            app.start(stage);
            return null;
        });
    }

    @AfterEach
    void closeAppAndServer() {
        if (app != null) {
            onFx(() -> {
                app.stop();
                return null;
            });
        }
        if (server != null) {
            server.close();
        }
    }

    /** Clicks Connect and waits for the console. */
    void connect(FxRobot robot) {
        robot.clickOn("#connectButton");
        until(() -> robot.lookup("#tab-dead").match(org.testfx.util.NodeQueryUtils.isVisible()).tryQuery()
                .isPresent());
    }

    /** A click the operator makes (counted, for the "under three clicks" test). */
    void click(FxRobot robot, String query) {
        clicks++;
        robot.clickOn(query);
    }

    void click(FxRobot robot, Node node) {
        clicks++;
        robot.clickOn(node);
    }

    /** Scrolls the form that holds the node so the node is in view (as the operator would), then clicks it. */
    org.testfx.api.FxRobotInterface clickInForm(FxRobot robot, String query) {
        onFx(() -> {
            Node node = robot.lookup(query).query();
            for (javafx.scene.Parent p = node.getParent(); p != null; p = p.getParent()) {
                if (p instanceof javafx.scene.control.ScrollPane pane) {
                    double content = pane.getContent().getLayoutBounds().getHeight();
                    double view = pane.getViewportBounds().getHeight();
                    double y = pane.getContent().sceneToLocal(node.localToScene(node.getLayoutBounds())).getMinY();
                    pane.setVvalue(content <= view ? 0 : Math.max(0, Math.min(1, (y - 40) / (content - view))));
                    pane.layout();
                    break;
                }
            }
            return null;
        });
        return robot.clickOn(query);
    }

    /** Waits (with a deadline) until a cell of the table shows exactly text, and returns it. */
    Node cell(FxRobot robot, String tableId, String text) {
        until(() -> findCell(robot, tableId, text) != null);
        return onFx(() -> findCell(robot, tableId, text));
    }

    private static Node findCell(FxRobot robot, String tableId, String text) {
        TableView<?> table = robot.lookup("#" + tableId).queryAs(TableView.class);
        return table.lookupAll(".table-cell").stream()
                .filter(n -> n instanceof Labeled l && text.equals(l.getText()) && n.isVisible())
                .findFirst().orElse(null);
    }

    String text(FxRobot robot, String query) {
        return onFx(() -> {
            Node node = robot.lookup(query).query();
            if (node instanceof Labeled l) {
                return l.getText();
            }
            if (node instanceof TextInputControl t) {
                return t.getText();
            }
            throw new IllegalArgumentException(query + " has no text");
        });
    }

    /** Waits until the control's text contains expected. */
    void untilText(FxRobot robot, String query, String expected) {
        until(() -> robot.lookup(query).tryQuery().isPresent() && text(robot, query) != null
                && text(robot, query).contains(expected));
        assertThat(text(robot, query)).contains(expected);
    }

    static void until(Callable<Boolean> condition) {
        try {
            WaitForAsyncUtils.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS, () -> onFx(condition));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("condition not met within " + DEADLINE_SECONDS + " s", e);
        }
    }

    /** Runs on the FX thread and returns the result (view state is read there). */
    static <T> T onFx(Callable<T> call) {
        try {
            if (javafx.application.Platform.isFxApplicationThread()) {
                return call.call();
            }
            return WaitForAsyncUtils.asyncFx(call).get(DEADLINE_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("FX call failed", e);
        }
    }
}
