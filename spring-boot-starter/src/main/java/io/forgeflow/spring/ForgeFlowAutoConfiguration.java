package io.forgeflow.spring;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.embedded.ForgeFlowWorker;
import io.forgeflow.embedded.WorkerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;

/**
 * ForgeFlow in a Spring Boot application (3.5 or 4.0) that has a {@code DataSource}: the database readied at start
 * ({@link ForgeFlowDatabase}), a {@link ForgeFlow} bean that enqueues in the current transaction, the
 * {@link ForgeFlowHandler} and {@link Recurring} methods, and the embedded worker ({@link ForgeFlowLifecycle}).
 * With Micrometer's {@code MeterRegistry} bean present, the worker's meters; with an {@code ObservationRegistry}, an
 * Observation around each enqueue and each handler invocation, carrying the trace from one to the other. Every bean
 * backs off when the application defines its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
        "org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnClass({DataSource.class, ForgeFlowWorker.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "forgeflow", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(ForgeFlowProperties.class)
public class ForgeFlowAutoConfiguration {

    /** Static: a bean post-processor, created before the beans it looks at. */
    @Bean
    @ConditionalOnMissingBean
    static ForgeFlowHandlers forgeFlowHandlers() {
        return new ForgeFlowHandlers();
    }

    @Bean
    @ConditionalOnMissingBean
    ForgeFlowDatabase forgeFlowDatabase(DataSource dataSource, ForgeFlowProperties properties) {
        return new ForgeFlowDatabase(dataSource, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    ForgeFlow forgeFlow(DataSource dataSource, ForgeFlowProperties properties, ForgeFlowDatabase database,
                        ObjectProvider<ObjectMapper> mappers, ObjectProvider<EnqueueTracing> tracing) {
        return new JdbcForgeFlow(dataSource, properties.getSchema(), mapper(mappers), tracing.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    RecurringReconciler forgeFlowRecurringReconciler(DataSource dataSource, ForgeFlowProperties properties,
                                                     ForgeFlowDatabase database, ObjectProvider<ObjectMapper> mappers,
                                                     Environment environment) {
        String owner = properties.getRecurringOwner();
        if (owner == null || owner.isBlank()) {
            owner = environment.getProperty("spring.application.name", "application");
        }
        return new RecurringReconciler(dataSource, properties.getSchema(), owner, mapper(mappers));
    }

    @Bean
    @ConditionalOnMissingBean
    ForgeFlowLifecycle forgeFlowLifecycle(DataSource dataSource, ForgeFlowProperties properties,
                                          ForgeFlowHandlers handlers, RecurringReconciler reconciler,
                                          ForgeFlowDatabase database, ObjectProvider<ObjectMapper> mappers,
                                          ObjectProvider<WorkerMetrics> metrics,
                                          ObjectProvider<HandlerDecorator> decorators) {
        return new ForgeFlowLifecycle(dataSource, properties, handlers, reconciler, mapper(mappers),
                metrics.getIfUnique(), decorators.getIfUnique());
    }

    /** The application's Jackson 2 mapper when it has exactly one, else a plain one that ignores unknown fields. */
    static ObjectMapper mapper(ObjectProvider<ObjectMapper> mappers) {
        return mappers.getIfUnique(() -> new ObjectMapper().findAndRegisterModules()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));
    }

    @Bean
    @ConditionalOnMissingBean
    ForgeFlowHealth forgeFlowHealth(DataSource dataSource, ForgeFlowProperties properties, ForgeFlowLifecycle lifecycle,
                                    ForgeFlowHandlers handlers) {
        return new ForgeFlowHealth(dataSource, properties.getSchema(), lifecycle, handlers);
    }

    /** The {@code forgeFlow} health contributor on Boot 3 (spring-boot-actuator). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    static class Boot3HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "forgeFlowHealthIndicator")
        ForgeFlowHealthIndicator forgeFlowHealthIndicator(ForgeFlowHealth health) {
            return new ForgeFlowHealthIndicator(health);
        }
    }

    /** The {@code forgeFlow} health contributor on Boot 4 (spring-boot-health). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Boot4HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "forgeFlowHealthIndicator")
        ForgeFlowHealthContributor forgeFlowHealthIndicator(ForgeFlowHealth health) {
            return new ForgeFlowHealthContributor(health);
        }
    }

    /**
     * Each enqueue inside an Observation whose trace context the job keeps ({@link ObservationEnqueueTracing}), and
     * each handler invocation inside one continuing the run's ({@link ObservationHandlerDecorator}), when the
     * application has an {@code ObservationRegistry} bean (Actuator makes one; with Micrometer Tracing, its handlers
     * make spans).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
    static class ObservationConfiguration {
        @Bean
        @ConditionalOnBean(type = "io.micrometer.observation.ObservationRegistry")
        @ConditionalOnMissingBean(HandlerDecorator.class)
        HandlerDecorator forgeFlowHandlerObservation(ObservationRegistry registry) {
            return new ObservationHandlerDecorator(registry);
        }

        @Bean
        @ConditionalOnBean(type = "io.micrometer.observation.ObservationRegistry")
        @ConditionalOnMissingBean(EnqueueTracing.class)
        EnqueueTracing forgeFlowEnqueueObservation(ObservationRegistry registry) {
            return new ObservationEnqueueTracing(registry);
        }
    }

    /** The worker's meters, when Micrometer is on the classpath and the application has a registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class MicrometerConfiguration {
        @Bean
        @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
        @ConditionalOnMissingBean(WorkerMetrics.class)
        WorkerMetrics forgeFlowWorkerMetrics(MeterRegistry registry, ObjectProvider<ForgeFlowLifecycle> lifecycle) {
            registry.gauge("forgeflow.scheduler.leader", lifecycle, l -> {
                ForgeFlowLifecycle life = l.getIfAvailable();
                ForgeFlowWorker worker = life == null ? null : life.worker();
                return worker != null && worker.isLeader() ? 1 : 0;
            });
            return new MicrometerWorkerMetrics(registry);
        }
    }
}
