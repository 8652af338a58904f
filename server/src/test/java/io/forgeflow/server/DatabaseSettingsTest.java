package io.forgeflow.server;

import io.dropwizard.db.DataSourceFactory;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DatabaseSettingsTest {
    @Test
    void thePoolGetsASocketTimeoutAConnectTimeoutAndTcpKeepAlive() {
        DataSourceFactory dsf = DatabaseSettings.withNetworkTimeouts(new DataSourceFactory());

        assertThat(dsf.getProperties()).containsEntry("socketTimeout", "60").containsEntry("connectTimeout", "10")
                .containsEntry("tcpKeepAlive", "true");
    }

    @Test
    void valuesTheConfigurationSetAreKept() {
        DataSourceFactory dsf = new DataSourceFactory();
        dsf.setProperties(Map.of("socketTimeout", "300", "ApplicationName", "ops"));

        DatabaseSettings.withNetworkTimeouts(dsf);

        assertThat(dsf.getProperties()).containsEntry("socketTimeout", "300").containsEntry("ApplicationName", "ops")
                .containsEntry("connectTimeout", "10");
    }
}
