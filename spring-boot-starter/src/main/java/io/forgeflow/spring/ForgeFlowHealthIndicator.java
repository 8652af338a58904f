package io.forgeflow.spring;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** {@link ForgeFlowHealth} as a Spring Boot 3 actuator health indicator. */
public class ForgeFlowHealthIndicator implements HealthIndicator {
    private final ForgeFlowHealth health;

    public ForgeFlowHealthIndicator(ForgeFlowHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        ForgeFlowHealth.Report report = health.check();
        Health.Builder b = report.up() ? Health.up() : Health.down();
        return b.withDetails(report.details()).build();
    }
}
