package io.forgeflow.spring;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** {@link ForgeFlowHealth} as a Spring Boot 4 health indicator ({@code spring-boot-health}). */
public class ForgeFlowHealthContributor implements HealthIndicator {
    private final ForgeFlowHealth health;

    public ForgeFlowHealthContributor(ForgeFlowHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        ForgeFlowHealth.Report report = health.check();
        Health.Builder b = report.up() ? Health.up() : Health.down();
        return b.withDetails(report.details()).build();
    }
}
