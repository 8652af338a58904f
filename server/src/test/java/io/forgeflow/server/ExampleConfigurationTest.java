package io.forgeflow.server;

import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The configuration files we ship load and validate, and YAML sections merge into the defaults. */
class ExampleConfigurationTest {

    ForgeFlowConfiguration load(String file) throws Exception {
        YamlConfigurationFactory<ForgeFlowConfiguration> factory = new YamlConfigurationFactory<>(
                ForgeFlowConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");
        return factory.build(new SubstitutingSourceProvider(new FileConfigurationSourceProvider(),
                new EnvironmentVariableSubstitutor(false)), file);
    }

    @Test
    void theExampleConfigurationLoadsAndKeepsTheDefaultsItDoesNotName() throws Exception {
        ForgeFlowConfiguration config = load(Path.of("src/main/resources/forgeflow.example.yml").toString());
        assertThat(config.database().getUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/forgeflow");
        assertThat(config.database().getMaxSize()).isEqualTo(24);
        assertThat(config.forgeflow().concurrency).isEqualTo(16);
        assertThat(config.forgeflow().roles).containsExactly("api", "scheduler", "worker");
    }

    @Test
    void theTestConfigurationLoads() throws Exception {
        ForgeFlowConfiguration config = load(Path.of("src/test/resources/test-config.yml").toString());
        assertThat(config.forgeflow().concurrency).isEqualTo(4);
    }
}
