package io.forgeflow.adapter.executor;

import io.forgeflow.domain.port.RunExecutor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class ServiceRegistrationTest {

    @Test
    void serviceLoaderFindsTheShellHttpNoopAndJavaExecutors() {
        List<RunExecutor> executors = ServiceLoader.load(RunExecutor.class).stream()
                .map(ServiceLoader.Provider::get).collect(Collectors.toList());
        try {
            assertThat(executors).extracting(RunExecutor::name).containsExactlyInAnyOrder("shell", "http", "noop", "java");
            assertThat(executors).hasAtLeastOneElementOfType(ShellRunExecutor.class)
                    .hasAtLeastOneElementOfType(HttpRunExecutor.class)
                    .hasAtLeastOneElementOfType(NoopRunExecutor.class)
                    .hasAtLeastOneElementOfType(JavaHandlerRunExecutor.class);
        } finally {
            executors.forEach(RunExecutor::close);
        }
    }
}
