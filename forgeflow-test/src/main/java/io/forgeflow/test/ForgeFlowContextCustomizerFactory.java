package io.forgeflow.test;

import org.springframework.beans.factory.config.ConstructorArgumentValues;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * For a test class with {@link ForgeFlowTest}: a fresh database when {@code FORGEFLOW_TEST_DATABASE_URL} is set, else
 * the application's, else an embedded PostgreSQL ({@link EmbeddedDatabaseWhenNoneGiven}); the properties of its mode (no worker and no recurring reconciliation unless DATABASE), and a {@link TestForgeFlow}
 * as the application's {@code ForgeFlow}. Registered in {@code META-INF/spring.factories}.
 */
public class ForgeFlowContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass,
                                                     List<ContextConfigurationAttributes> configAttributes) {
        ForgeFlowTest test = AnnotatedElementUtils.findMergedAnnotation(testClass, ForgeFlowTest.class);
        return test == null ? null : new Customizer(test.mode(), test.freshDatabase());
    }

    /** Equal for equal settings, so that Spring's test context cache shares the context between such classes. */
    record Customizer(ForgeFlowTest.Mode mode, boolean freshDatabase) implements ContextCustomizer {
        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration merged) {
            Map<String, Object> properties = new LinkedHashMap<>();
            TestDatabases.Fresh db = freshDatabase ? TestDatabases.freshFromEnvironment(context::isActive) : null;
            if (db != null) {
                properties.put("spring.datasource.url", db.jdbcUrl());
                properties.put("spring.datasource.username", db.user());
                properties.put("spring.datasource.password", db.password());
            } else {
                context.addBeanFactoryPostProcessor(new EmbeddedDatabaseWhenNoneGiven(context.getEnvironment(),
                        context::isActive));
            }
            if (mode != ForgeFlowTest.Mode.DATABASE) {
                properties.put("forgeflow.worker", "false");
                properties.put("forgeflow.recurring", "false");
            }
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("forgeflow-test", properties));
            if (!(context instanceof BeanDefinitionRegistry registry)) {
                throw new IllegalStateException("@ForgeFlowTest needs a context that takes bean definitions, was "
                        + context.getClass().getName());
            }
            RootBeanDefinition bean = new RootBeanDefinition(TestForgeFlow.class);
            ConstructorArgumentValues args = new ConstructorArgumentValues();
            args.addIndexedArgumentValue(0, mode);
            bean.setConstructorArgumentValues(args);
            bean.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR);
            bean.setPrimary(true);
            // after the database is readied (migrations, the java executor), as the starter's own ForgeFlow is
            bean.setDependsOn("forgeFlowDatabase");
            registry.registerBeanDefinition("forgeFlow", bean);
        }
    }
}
