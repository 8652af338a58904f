package io.forgeflow.admin;

import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(ApplicationExtension.class)
class AdminAppTest {

    @Start
    void start(Stage stage) {
        new AdminApp().start(stage);
    }

    @Test
    void theWindowOpensWithItsTitle(FxRobot robot) {
        assertThat(robot.lookup("#title").queryAs(Label.class).getText()).isEqualTo("ForgeFlow admin");
        assertThat(robot.window(0).getScene()).isNotNull();
    }
}
