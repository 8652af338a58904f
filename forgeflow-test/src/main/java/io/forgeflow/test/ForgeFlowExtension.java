package io.forgeflow.test;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/** Clears the {@link TestForgeFlow} of the test's Spring context before each test ({@link ForgeFlowTest}). */
public class ForgeFlowExtension implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) {
        ApplicationContext spring = SpringExtension.getApplicationContext(context);
        spring.getBeanProvider(TestForgeFlow.class).ifAvailable(TestForgeFlow::clear);
    }
}
