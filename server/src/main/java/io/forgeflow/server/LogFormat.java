package io.forgeflow.server;

import ch.qos.logback.access.common.spi.IAccessEvent;
import ch.qos.logback.access.jetty.RequestLogImpl;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.logging.common.AbstractAppenderFactory;
import io.dropwizard.logging.common.AppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.logging.common.LoggingFactory;
import io.dropwizard.logging.json.AccessJsonLayoutBaseFactory;
import io.dropwizard.logging.json.EventJsonLayoutBaseFactory;
import io.dropwizard.request.logging.LogbackAccessRequestLogFactory;
import io.dropwizard.request.logging.RequestLogFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

import java.util.Locale;
import java.util.Map;

/**
 * {@code FORGEFLOW_LOG_FORMAT=json} (or {@code forgeflow.logFormat: json}): every appender of the {@code logging:}
 * section, and of the request log, writes one JSON object per line (dropwizard-json-logging), with the MDC keys
 * (run_id, job_id, attempt, worker_id) as top-level fields:
 *
 * <pre>{@code
 * {"timestamp":"2026-07-01T09:30:00.123Z","level":"INFO","thread":"ff-exec-3","logger":"io.forgeflow...Worker",
 *  "message":"run ... attempt 1 failed in 12 ms -> pending: exit code 3","run_id":"...","job_id":"...",
 *  "attempt":"1","worker_id":"node-a"}
 * }</pre>
 *
 * Setting the variable is enough; a {@code layout:} written in the YAML for an appender is replaced.
 */
final class LogFormat {
    static final String TEXT = "text";
    static final String JSON = "json";
    static final String VARIABLE = "FORGEFLOW_LOG_FORMAT";

    private LogFormat() {
    }

    /** {@code text} or {@code json} (any case); anything else stops the node with a message naming the variable. */
    static String parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        if (v.isEmpty() || v.equals(TEXT)) {
            return TEXT;
        }
        if (v.equals(JSON)) {
            return JSON;
        }
        throw new IllegalArgumentException(VARIABLE + " must be text or json, was '" + value + "'");
    }

    /** The format the environment asks for, else the configuration's. */
    static String chosen(ForgeFlowConfiguration config, Map<String, String> env) {
        String fromEnv = env.get(VARIABLE);
        return parse(fromEnv != null ? fromEnv : config.forgeflow().logFormat);
    }

    /** Switches every appender of {@code logging} and of the request log to JSON when the format is {@code json}. */
    static void apply(ForgeFlowConfiguration config, LoggingFactory logging, Map<String, String> env) {
        if (!JSON.equals(chosen(config, env))) {
            return;
        }
        if (logging instanceof DefaultLoggingFactory defaults) {
            for (AppenderFactory<ILoggingEvent> appender : defaults.getAppenders()) {
                if (appender instanceof AbstractAppenderFactory<ILoggingEvent> factory) {
                    factory.setLayout(eventLayout());
                }
            }
        }
        if (config.getServerFactory() instanceof AbstractServerFactory server) {
            RequestLogFactory<?> requestLog = server.getRequestLogFactory();
            if (requestLog instanceof LogbackAccessRequestLogFactory access) {
                for (AppenderFactory<IAccessEvent> appender : access.getAppenders()) {
                    if (appender instanceof AbstractAppenderFactory<IAccessEvent> factory) {
                        factory.setLayout(accessLayout());
                    }
                }
            }
        }
    }

    /**
     * With JSON lines, keeps logback-access from printing its start-up status (plain-text version notes) to stdout,
     * where every line must be JSON: called before the server starts.
     */
    static void quietRequestLogStatus(Environment environment, ForgeFlowConfiguration config) {
        if (!JSON.equals(chosen(config, System.getenv()))) {
            return;
        }
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server && server.getRequestLog() instanceof RequestLogImpl access) {
                    access.setQuiet(true);
                }
            }
        });
    }

    static EventJsonLayoutBaseFactory eventLayout() {
        EventJsonLayoutBaseFactory layout = new EventJsonLayoutBaseFactory();
        layout.setFlattenMdc(true); // run_id etc. as top-level fields: jq 'select(.run_id == "...")'
        layout.setTimestampFormat("yyyy-MM-dd'T'HH:mm:ss.SSSX");
        return layout;
    }

    static AccessJsonLayoutBaseFactory accessLayout() {
        AccessJsonLayoutBaseFactory layout = new AccessJsonLayoutBaseFactory();
        layout.setTimestampFormat("yyyy-MM-dd'T'HH:mm:ss.SSSX");
        return layout;
    }
}
