package io.forgeflow.admin.fx;

import javafx.scene.layout.Region;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ViewsTest {

    @Test
    void aStatusStyleReplacesTheLastOneWaitingAndOpenIncluded() {
        Region label = new Region(); // a plain node: no toolkit needed
        label.getStyleClass().add("keep-me");

        Views.styleStatus(label, "pending");
        Views.styleStatus(label, "waiting");
        assertThat(label.getStyleClass()).containsExactly("keep-me", "status-waiting");

        Views.styleStatus(label, "open");
        assertThat(label.getStyleClass()).containsExactly("keep-me", "status-open");

        Views.styleStatus(label, null);
        assertThat(label.getStyleClass()).containsExactly("keep-me");
    }
}
