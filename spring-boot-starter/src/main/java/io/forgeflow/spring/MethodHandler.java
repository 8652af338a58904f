package io.forgeflow.spring;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.embedded.JobContext;
import io.forgeflow.embedded.JobHandler;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** A {@link ForgeFlowHandler} method as a {@link JobHandler}: its parameters filled from the attempt's context. */
final class MethodHandler implements JobHandler {
    private final String name;
    private final Object bean;
    private final Method method;
    private final Class<?>[] parameters;

    MethodHandler(String name, Object bean, Method method) {
        this.name = name;
        this.bean = bean;
        this.method = method;
        this.parameters = method.getParameterTypes();
        int args = 0;
        int contexts = 0;
        for (Class<?> type : parameters) {
            if (JobContext.class.isAssignableFrom(type)) {
                contexts++;
            } else {
                args++;
            }
        }
        if (args > 1 || contexts > 1) {
            throw new IllegalStateException("handler '" + name + "' (" + describe(method) + ") takes at most one args "
                    + "parameter (a record, a class or a JsonNode) and one JobContext, had " + parameters.length
                    + " parameters");
        }
        method.setAccessible(true);
    }

    String name() {
        return name;
    }

    Method method() {
        return method;
    }

    @Override
    public void handle(JobContext ctx) throws Exception {
        Object[] values = new Object[parameters.length];
        for (int i = 0; i < parameters.length; i++) {
            Class<?> type = parameters[i];
            if (JobContext.class.isAssignableFrom(type)) {
                values[i] = ctx;
            } else if (JsonNode.class.isAssignableFrom(type)) {
                values[i] = ctx.payload();
            } else {
                values[i] = ctx.payloadAs(type);
            }
        }
        try {
            method.invoke(bean, values);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }
}
