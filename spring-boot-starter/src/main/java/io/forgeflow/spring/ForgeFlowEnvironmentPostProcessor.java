package io.forgeflow.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.ClassPathResource;

import java.util.Map;

/**
 * ForgeFlow's migrations bring Liquibase onto the application's classpath, and Spring Boot then runs Liquibase for
 * the application itself, failing when it has no changelog of its own. This switches that off, with the lowest
 * precedence, only when the application neither has Boot's default changelog
 * ({@code db/changelog/db.changelog-master.yaml}) nor sets {@code spring.liquibase.enabled} or
 * {@code spring.liquibase.change-log}. Registered under the Boot 3 key, which Boot 4 still reads.
 */
public class ForgeFlowEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {
    static final String SOURCE = "forgeflow-starter-defaults";
    private static final String DEFAULT_CHANGELOG = "db/changelog/db.changelog-master.yaml";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (environment.getPropertySources().contains(SOURCE)
                || environment.containsProperty("spring.liquibase.enabled")
                || environment.containsProperty("spring.liquibase.change-log")) {
            return;
        }
        ClassLoader loader = application.getClassLoader();
        if (new ClassPathResource(DEFAULT_CHANGELOG, loader).exists()) {
            return;
        }
        environment.getPropertySources().addLast(new MapPropertySource(SOURCE,
                Map.of("spring.liquibase.enabled", "false")));
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
