package io.forgeflow.server;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.logging.common.AbstractAppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.logging.json.AccessJsonLayoutBaseFactory;
import io.dropwizard.logging.json.EventJsonLayoutBaseFactory;
import io.dropwizard.request.logging.LogbackAccessRequestLogFactory;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The observability settings: retention, log format, event stream; and what the JSON log format changes. */
class ObservabilitySettingsTest {

    @Test
    void theDefaultsKeepTwoWeeksLogTextAndKeepTenThousandEvents() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.of());
        ForgeFlowSettings s = config.forgeflow();

        assertThat(s.retention).isEqualTo(Duration.days(14));
        assertThat(s.retentionInterval).isEqualTo(Duration.minutes(1));
        assertThat(s.logFormat).isEqualTo("text");
        assertThat(s.eventBuffer).isEqualTo(10_000);
        assertThat(s.eventKeepAlive).isEqualTo(Duration.seconds(15));
    }

    @Test
    void theVariablesOverrideTheSettings() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.of("FORGEFLOW_RETENTION", "30d", "FORGEFLOW_RETENTION_INTERVAL", "5m",
                "FORGEFLOW_LOG_FORMAT", "JSON", "FORGEFLOW_EVENT_BUFFER", "500", "FORGEFLOW_EVENT_KEEPALIVE", "5s",
                "FORGEFLOW_HISTORY_AFTER", "6h"));
        ForgeFlowSettings s = config.forgeflow();

        assertThat(s.historyAfter.toHours()).isEqualTo(6);
        assertThat(s.retention.toDays()).isEqualTo(30);
        assertThat(s.retentionInterval.toMinutes()).isEqualTo(5);
        assertThat(s.logFormat).isEqualTo("json");
        assertThat(s.eventBuffer).isEqualTo(500);
        assertThat(s.eventKeepAlive.toSeconds()).isEqualTo(5);
    }

    @Test
    void badValuesStopTheNodeNamingTheVariable() {
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_LOG_FORMAT", "xml"))).hasMessageContaining("FORGEFLOW_LOG_FORMAT must be text or json");
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_RETENTION", "forever"))).hasMessageContaining("FORGEFLOW_RETENTION");
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_RETENTION", "0s"))).hasMessageContaining("FORGEFLOW_RETENTION");
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_HISTORY_AFTER", "0s"))).hasMessageContaining("FORGEFLOW_HISTORY_AFTER");
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_HISTORY_AFTER", "soon"))).hasMessageContaining("FORGEFLOW_HISTORY_AFTER");
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_EVENT_BUFFER", "0"))).hasMessageContaining("FORGEFLOW_EVENT_BUFFER");
    }

    @Test
    void jsonSwitchesEveryAppenderAndTheRequestLogToJsonLinesWithTheRunFieldsAtTopLevel() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        DefaultLoggingFactory logging = (DefaultLoggingFactory) config.getLoggingFactory();

        LogFormat.apply(config, logging, Map.of("FORGEFLOW_LOG_FORMAT", "json"));

        assertThat(logging.getAppenders()).isNotEmpty().allSatisfy(appender -> {
            assertThat(((AbstractAppenderFactory<?>) appender).getLayout()).isInstanceOf(EventJsonLayoutBaseFactory.class);
            EventJsonLayoutBaseFactory layout = (EventJsonLayoutBaseFactory) ((AbstractAppenderFactory<?>) appender).getLayout();
            assertThat(layout.isFlattenMdc()).isTrue();
        });
        LogbackAccessRequestLogFactory requestLog = (LogbackAccessRequestLogFactory)
                ((DefaultServerFactory) config.getServerFactory()).getRequestLogFactory();
        assertThat(requestLog.getAppenders()).allSatisfy(appender ->
                assertThat(((AbstractAppenderFactory<?>) appender).getLayout()).isInstanceOf(AccessJsonLayoutBaseFactory.class));
    }

    @Test
    void textLeavesTheLayoutsAlone() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        DefaultLoggingFactory logging = (DefaultLoggingFactory) config.getLoggingFactory();

        LogFormat.apply(config, logging, Map.of());

        assertThat(logging.getAppenders()).allSatisfy(appender ->
                assertThat(((AbstractAppenderFactory<?>) appender).getLayout()).isNull());
    }
}
