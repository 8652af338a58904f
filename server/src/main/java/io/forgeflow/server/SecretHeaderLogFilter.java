package io.forgeflow.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

import java.util.Locale;

/**
 * Keeps bearer tokens out of the logs at every level: Jetty's HTTP parser logs each request header at DEBUG
 * ({@code parsedHeader(Authorization: Bearer ...)}), so a DEBUG or TRACE event of the HTTP stack (Jetty, Jersey,
 * Dropwizard, OkHttp) whose message or arguments mention an {@code Authorization} header is dropped. Installed once
 * the logging configuration is applied ({@link #install()}), since configuring logging resets logback's filters.
 */
final class SecretHeaderLogFilter extends TurboFilter {
    private static final String[] HTTP_STACK = {"org.eclipse.jetty", "org.glassfish.jersey", "io.dropwizard", "okhttp3"};

    /** Adds the filter to logback's context, unless it is there already. */
    static void install() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context
                && context.getTurboFilterList().stream().noneMatch(f -> f instanceof SecretHeaderLogFilter)) {
            SecretHeaderLogFilter filter = new SecretHeaderLogFilter();
            filter.setName("forgeflow-secret-headers");
            filter.start();
            context.addTurboFilter(filter);
        }
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (level == null || level.isGreaterOrEqual(Level.INFO) || logger == null || !fromHttpStack(logger.getName())) {
            return FilterReply.NEUTRAL;
        }
        if (mentionsAuthorization(format)) {
            return FilterReply.DENY;
        }
        if (params != null) {
            for (Object param : params) {
                if (param != null && mentionsAuthorization(String.valueOf(param))) {
                    return FilterReply.DENY;
                }
            }
        }
        return FilterReply.NEUTRAL;
    }

    private static boolean fromHttpStack(String name) {
        for (String prefix : HTTP_STACK) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    static boolean mentionsAuthorization(String text) {
        return text != null && text.toLowerCase(Locale.ROOT).contains("authorization");
    }
}
