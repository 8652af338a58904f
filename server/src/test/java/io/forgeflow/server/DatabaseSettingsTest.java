package io.forgeflow.server;

import io.dropwizard.db.DataSourceFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The database URL is logged without its password, in every form the node accepts. */
class DatabaseSettingsTest {
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
}
