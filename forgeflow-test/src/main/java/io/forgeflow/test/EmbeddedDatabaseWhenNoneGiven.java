package io.forgeflow.test;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A {@link ForgeFlowTest} context without {@code FORGEFLOW_TEST_DATABASE_URL}: when the application gives no database
 * either, points {@code spring.datasource} at the JVM's embedded PostgreSQL ({@link TestDatabases#embedded}). Runs
 * once every bean is defined and before any is created, so it sees the application's own definitions.
 *
 * <p>The application gives a database when its environment has {@code spring.datasource.url}, or a bean of type
 * {@code DataSource} or {@code JdbcConnectionDetails} (a Testcontainers {@code @ServiceConnection} makes one) is defined
 * by anything but Spring Boot's JDBC auto-configuration, whose pooled {@code DataSource} is always defined.
 */
final class EmbeddedDatabaseWhenNoneGiven implements BeanFactoryPostProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabaseWhenNoneGiven.class);
    static final String SOURCE = "forgeflow-test-embedded-database";
    /** Where Spring Boot 3 and 4 keep their JDBC auto-configuration. */
    private static final List<String> BOOT_JDBC = List.of("org.springframework.boot.autoconfigure.jdbc.",
            "org.springframework.boot.jdbc.autoconfigure.");
    private static final List<String> CONNECTION_DETAILS = List.of(
            "org.springframework.boot.autoconfigure.jdbc.JdbcConnectionDetails",
            "org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails");

    private final ConfigurableEnvironment environment;
    private final BooleanSupplier contextActive;

    EmbeddedDatabaseWhenNoneGiven(ConfigurableEnvironment environment, BooleanSupplier contextActive) {
        this.environment = environment;
        this.contextActive = contextActive;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        String given = givenDatabase(beanFactory);
        if (given != null) {
            LOG.debug("@ForgeFlowTest: the application's database ({})", given);
            return;
        }
        TestDatabases.Fresh db = TestDatabases.embedded(contextActive);
        LOG.info("@ForgeFlowTest: {} is not set and the application gives no database: using the embedded "
                + "PostgreSQL at {}", TestDatabases.ENV, db.jdbcUrl());
        environment.getPropertySources().addFirst(new MapPropertySource(SOURCE, Map.of(
                "spring.datasource.url", db.jdbcUrl(),
                "spring.datasource.username", db.user(),
                "spring.datasource.password", db.password())));
    }

    /** What gives the application its database, or null for nothing. */
    String givenDatabase(ConfigurableListableBeanFactory beanFactory) {
        if (environment.containsProperty("spring.datasource.url")) {
            return "spring.datasource.url";
        }
        ClassLoader loader = beanFactory.getBeanClassLoader();
        for (String type : CONNECTION_DETAILS) {
            if (ClassUtils.isPresent(type, loader)) {
                String bean = applicationBean(beanFactory, ClassUtils.resolveClassName(type, loader));
                if (bean != null) {
                    return "bean " + bean;
                }
            }
        }
        String bean = applicationBean(beanFactory, DataSource.class);
        return bean == null ? null : "bean " + bean;
    }

    /** A bean of {@code type} that Spring Boot's JDBC auto-configuration does not define, or null. */
    private static String applicationBean(ConfigurableListableBeanFactory beanFactory, Class<?> type) {
        for (String name : beanFactory.getBeanNamesForType(type, true, false)) {
            if (!beanFactory.containsBeanDefinition(name)) {
                return name; // a registered singleton: the application's
            }
            String origin = origin(beanFactory.getBeanDefinition(name));
            if (origin == null || BOOT_JDBC.stream().noneMatch(origin::startsWith)) {
                return name;
            }
        }
        return null;
    }

    /** The class that declares the bean: its {@code @Bean} method's class, else its own class. */
    private static String origin(BeanDefinition definition) {
        if (definition instanceof AnnotatedBeanDefinition annotated) {
            MethodMetadata method = annotated.getFactoryMethodMetadata();
            if (method != null) {
                return method.getDeclaringClassName();
            }
        }
        return definition.getBeanClassName();
    }
}
