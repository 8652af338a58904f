package io.forgeflow.application.executor;

import io.forgeflow.application.testkit.FakeExecutor;
import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExecutorRegistryTest {
    final FakeExecutor shell = new FakeExecutor("shell");
    final FakeExecutor http = new FakeExecutor("http");
    final FakeExecutor noop = new FakeExecutor("noop");

    @Test
    void withoutAnEnabledListEveryKnownExecutorIsEnabled() {
        ExecutorRegistry registry = new ExecutorRegistry(List.of(shell, http), null);

        assertThat(registry.enabledNames()).containsExactlyInAnyOrder("shell", "http");
        assertThat(new ExecutorRegistry(List.of(shell, http), Set.of()).enabledNames())
                .containsExactlyInAnyOrder("shell", "http");
        assertThat(registry.enabled("shell")).containsSame(shell);
        assertThat(registry.enabled("http")).containsSame(http);
    }

    @Test
    void onlyTheEnabledNamesAreRunHereButAllKnownOnesValidate() {
        ExecutorRegistry registry = new ExecutorRegistry(List.of(shell, http, noop), Set.of("http"));

        assertThat(registry.enabledNames()).containsExactly("http");
        assertThat(registry.knownNames()).containsExactly("http", "noop", "shell");
        assertThat(registry.enabled("http")).containsSame(http);
        assertThat(registry.enabled("shell")).isEmpty();
        assertThat(registry.enabled("ftp")).isEmpty();
        assertThatCode(() -> registry.validate("shell", Map.of("command", "true"))).doesNotThrowAnyException();
    }

    @Test
    void anUnknownExecutorIsAValidationErrorOnTheExecutorFieldNamingTheKnownOnes() {
        ExecutorRegistry registry = new ExecutorRegistry(List.of(shell, http), Set.of("shell"));

        assertThatThrownBy(() -> registry.validate("ftp", Map.of()))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("executor");
                    assertThat(e.getMessage()).contains("'ftp'").contains("http, shell");
                });
    }

    @Test
    void theExecutorItselfJudgesThePayload() {
        ExecutorRegistry registry = new ExecutorRegistry(List.of(shell), null);

        assertThatThrownBy(() -> registry.validate("shell", Map.of("bad", true)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("payload.bad"));
    }

    @Test
    void enablingAnUnknownExecutorIsRefusedAtStartup() {
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(shell, http), Set.of("shell", "ftp")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FORGEFLOW_EXECUTORS")
                .hasMessageContaining("'ftp'")
                .hasMessageContaining("http, shell");
    }

    @Test
    void twoExecutorsWithOneNameAreRefused() {
        FakeExecutor anotherShell = new FakeExecutor("shell");

        assertThatThrownBy(() -> new ExecutorRegistry(List.of(shell, http, anotherShell), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'shell'");
    }

    @Test
    void closeAllClosesEveryKnownExecutorEnabledOrNot() {
        ExecutorRegistry registry = new ExecutorRegistry(List.of(shell, http), Set.of("shell"));

        registry.closeAll();

        assertThat(shell.isClosed()).isTrue();
        assertThat(http.isClosed()).isTrue();
    }

    @Test
    void theNameSetsCannotBeChangedFromOutside() {
        ExecutorRegistry registry = new ExecutorRegistry(List.of(shell, http), null);

        assertThatThrownBy(() -> registry.enabledNames().add("ftp")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> registry.knownNames().add("ftp")).isInstanceOf(UnsupportedOperationException.class);
    }
}
