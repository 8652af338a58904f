package io.forgeflow.server;

import io.dropwizard.db.DataSourceFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DatabaseSettingsTest {
    /** The database URL is logged without its password, in every form the node accepts. */
    @ParameterizedTest
    @ValueSource(strings = {
            "postgresql://ff:pw-s3cret@db.internal:5432/forgeflow",
            "postgres://ff:pw-s3cret@db.internal/forgeflow?sslmode=require",
            "jdbc:postgresql://db.internal:5432/forgeflow?user=ff&password=pw-s3cret",
            "jdbc:postgresql://db.internal:5432/forgeflow?password=pw-s3cret&user=ff",
            "jdbc:postgresql://db.internal/forgeflow?sslmode=require&PASSWORD=pw-s3cret"})
    void describeNeverShowsThePassword(String url) {
        String described = DatabaseSettings.describe(DatabaseSettings.apply(new DataSourceFactory(), url));
        assertThat(described).contains("db.internal").doesNotContain("pw-s3cret");
    }

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
