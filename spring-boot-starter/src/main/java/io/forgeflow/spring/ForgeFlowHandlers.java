package io.forgeflow.spring;

import io.forgeflow.embedded.JobHandler;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The application's handlers and recurring jobs, found on its beans' {@link ForgeFlowHandler} and {@link Recurring}
 * methods as the beans are created. A handler name used twice fails the start, naming both methods.
 */
public final class ForgeFlowHandlers implements BeanPostProcessor {
    private final Map<String, MethodHandler> handlers = Collections.synchronizedMap(new LinkedHashMap<>());
    private final List<RecurringDefinition> recurring = Collections.synchronizedList(new ArrayList<>());

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, Boolean> methods = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<Boolean>) m ->
                        AnnotatedElementUtils.hasAnnotation(m, ForgeFlowHandler.class)
                                || AnnotatedElementUtils.hasAnnotation(m, Recurring.class) ? Boolean.TRUE : null);
        for (Method method : methods.keySet()) {
            ForgeFlowHandler handler = AnnotatedElementUtils.findMergedAnnotation(method, ForgeFlowHandler.class);
            Recurring schedule = AnnotatedElementUtils.findMergedAnnotation(method, Recurring.class);
            String name = handler != null ? handler.value() : schedule.name();
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            register(new MethodHandler(name, bean, invocable));
            if (schedule != null) {
                RecurringDefinition definition = RecurringDefinition.of(schedule, name, MethodHandler.describe(method));
                synchronized (recurring) {
                    for (RecurringDefinition other : recurring) {
                        if (other.name().equals(definition.name())) {
                            throw new IllegalStateException("@Recurring name '" + definition.name() + "' is declared "
                                    + "twice, on " + other.declaredOn() + " and " + definition.declaredOn()
                                    + ": give each a name of its own");
                        }
                    }
                    recurring.add(definition);
                }
            }
        }
        return bean;
    }

    private void register(MethodHandler handler) {
        if (handler.name() == null || handler.name().isBlank() || handler.name().length() > 100) {
            throw new IllegalStateException("handler name of " + MethodHandler.describe(handler.method())
                    + " must be 1 to 100 characters, was '" + handler.name() + "'");
        }
        MethodHandler before = handlers.putIfAbsent(handler.name(), handler);
        if (before != null) {
            throw new IllegalStateException("handler '" + handler.name() + "' is declared twice, on "
                    + MethodHandler.describe(before.method()) + " and " + MethodHandler.describe(handler.method())
                    + ": a handler name belongs to one method");
        }
    }

    /** The handlers found so far, by name. */
    public Map<String, JobHandler> handlers() {
        synchronized (handlers) {
            return Map.copyOf(handlers);
        }
    }

    /** The recurring jobs found so far. */
    public List<RecurringDefinition> recurring() {
        synchronized (recurring) {
            return List.copyOf(recurring);
        }
    }
}
