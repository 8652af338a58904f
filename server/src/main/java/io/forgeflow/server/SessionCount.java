package io.forgeflow.server;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Counts a node's open session connections (GET /api/nodes {@code connections.sessions}). */
final class SessionCount {
    private final AtomicInteger open = new AtomicInteger();

    /** The connections {@code connections} opens, each counted until it is closed. */
    Supplier<Connection> counted(Supplier<Connection> connections) {
        return () -> {
            Connection connection = connections.get();
            open.incrementAndGet();
            AtomicBoolean closed = new AtomicBoolean();
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[]{Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close") && method.getParameterCount() == 0
                                && closed.compareAndSet(false, true)) {
                            open.decrementAndGet();
                        }
                        return invoke(connection, method, args);
                    });
        };
    }

    int open() {
        return open.get();
    }

    private static Object invoke(Connection target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
