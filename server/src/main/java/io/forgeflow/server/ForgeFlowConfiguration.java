package io.forgeflow.server;

import com.fasterxml.jackson.annotation.JsonMerge;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.logging.common.LoggingFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import java.util.List;

/**
 * The node's configuration: Dropwizard's sections plus {@code forgeflow:} and {@code database:} (pool settings;
 * the URL usually comes from {@code forgeflow.databaseUrl}). The defaults are safe: both ports listen on loopback
 * (127.0.0.1:8080 and 127.0.0.1:8081), and Dropwizard's own exception mappers are off so that every error answers in
 * the API's JSON shape. The {@code forgeflow:} and {@code database:} sections merge into these defaults, so a YAML file
 * names only what it changes.
 */
public class ForgeFlowConfiguration extends Configuration {

    @Valid
    @NotNull
    @JsonMerge
    @JsonProperty("forgeflow")
    private ForgeFlowSettings forgeflow = new ForgeFlowSettings();

    @Valid
    @NotNull
    @JsonMerge
    @JsonProperty("database")
    private DataSourceFactory database = defaultDatabase();

    /** The logging factory that {@link LogFormat} was last applied to. */
    @JsonIgnore
    private LoggingFactory logFormatAppliedTo;

    public ForgeFlowConfiguration() {
        DefaultServerFactory server = new DefaultServerFactory();
        server.setApplicationConnectors(List.of(http("127.0.0.1", 8080)));
        server.setAdminConnectors(List.of(http("127.0.0.1", 8081)));
        server.setRegisterDefaultExceptionMappers(false);
        setServerFactory(server);
    }

    public ForgeFlowSettings forgeflow() {
        return forgeflow;
    }

    /**
     * The logging section, switched to JSON lines when FORGEFLOW_LOG_FORMAT (or {@code forgeflow.logFormat}) says
     * {@code json} ({@link LogFormat}). Applied here, at the first read, because Dropwizard configures logging before
     * the application runs, whatever command or test harness starts it.
     */
    @Override
    public synchronized LoggingFactory getLoggingFactory() {
        LoggingFactory logging = super.getLoggingFactory();
        if (logging != logFormatAppliedTo) {
            logFormatAppliedTo = logging;
            LogFormat.apply(this, logging, System.getenv());
        }
        return logging;
    }

    public DataSourceFactory database() {
        return database;
    }

    static ConnectorFactory http(String host, int port) {
        HttpConnectorFactory c = new HttpConnectorFactory();
        c.setBindHost(host);
        c.setPort(port);
        return c;
    }

    private static DataSourceFactory defaultDatabase() {
        DataSourceFactory d = new DataSourceFactory();
        d.setDriverClass("org.postgresql.Driver");
        d.setUser("postgres");
        d.setPassword("");
        d.setUrl("jdbc:postgresql://127.0.0.1:5432/forgeflow");
        d.setMinSize(2);
        d.setInitialSize(2);
        d.setMaxSize(24);
        d.setValidationQuery("/* forgeflow health */ SELECT 1");
        d.setCheckConnectionOnBorrow(false);
        return d;
    }
}
