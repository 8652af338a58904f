package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Queue names: safe in URLs, metric labels and the comma-separated FORGEFLOW_QUEUES list. */
class QueueNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"default", "reports", "Reports", "0", "9lives", "a.b", "a_b", "a-b", "web.hooks_v2-eu",
            "a..", "a--", "x"})
    void lettersDigitsDotsUnderscoresAndDashesStartingWithALetterOrDigitAreValid(String name) {
        assertThat(QueueNames.isValid(name)).isTrue();
        assertThat(QueueNames.require("queue", name)).isSameAs(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", " a", "a ", ".a", "_a", "-a", "*", "a*", "a,b", "a=2", "a/b", "a\\b", "a b",
            "a:b", "a%2Fb", "über", "日本", "a\u0000", "a\n", "🚀"})
    void anythingElseIsInvalid(String name) {
        assertThat(QueueNames.isValid(name)).isFalse();
        assertThatThrownBy(() -> QueueNames.require("queue", name))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("queue"))
                .hasMessageContaining("is not a valid queue name")
                .hasMessageContaining("letters, digits, '.', '_' or '-', starting with a letter or digit");
    }

    @Test
    void aHundredCharactersIsTheLongestName() {
        assertThat(QueueNames.isValid("q".repeat(QueueNames.MAX_LENGTH))).isTrue();
        assertThat(QueueNames.isValid("q".repeat(QueueNames.MAX_LENGTH + 1))).isFalse();
        assertThat(QueueNames.MAX_LENGTH).isEqualTo(100);
        assertThat(QueueNames.MAX_KEY_LENGTH).isEqualTo(200);
    }

    @Test
    void nullIsInvalidAndShownAsNull() {
        assertThat(QueueNames.isValid(null)).isFalse();
        assertThatThrownBy(() -> QueueNames.require("name", null))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("name"))
                .hasMessageStartingWith("name 'null' is not a valid queue name");
    }

    @Test
    void theMessageNamesTheGivenFieldQuotesTheNameCutAfterSixtyCharactersAndHidesNul() {
        assertThatThrownBy(() -> QueueNames.require("FORGEFLOW_QUEUES", "a b"))
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("FORGEFLOW_QUEUES"))
                .hasMessage("FORGEFLOW_QUEUES 'a b' is not a valid queue name: use 1 to 100 letters, digits, '.', '_' "
                        + "or '-', starting with a letter or digit, e.g. \"reports\"");
        assertThatThrownBy(() -> QueueNames.require("queue", "x".repeat(500)))
                .hasMessageContaining("'" + "x".repeat(60) + "…'").hasMessageNotContaining("x".repeat(61));
        assertThatThrownBy(() -> QueueNames.require("queue", "a\u0000b")).hasMessageContaining("'a?b'");
    }

    @Test
    void anInvalidNameOfSixtyCharactersIsShownWhole() {
        String sixty = "-" + "y".repeat(59);
        assertThatThrownBy(() -> QueueNames.require("queue", sixty)).hasMessageContaining("'" + sixty + "'")
                .hasMessageNotContaining("…");
        assertThatThrownBy(() -> QueueNames.require("queue", sixty + "y")).hasMessageContaining("'" + sixty + "…'");
    }
}
