package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.PostgresUrls.Parsed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PostgresUrlsTest {

    @Test
    void aLibpqUrlBecomesAJdbcUrlWithUserAndPassword() {
        assertThat(PostgresUrls.parse("postgresql://forge:s3cret@db.internal:5433/forgeflow"))
                .isEqualTo(new Parsed("jdbc:postgresql://db.internal:5433/forgeflow", "forge", "s3cret"));
    }

    @Test
    void thePostgresSchemeIsAcceptedToo() {
        assertThat(PostgresUrls.parse("postgres://u:p@localhost/db").jdbcUrl())
                .isEqualTo("jdbc:postgresql://localhost/db");
    }

    @Test
    void queryParametersPassThrough() {
        assertThat(PostgresUrls.parse("postgresql://u:p@h:5432/db?sslmode=require&ApplicationName=ff").jdbcUrl())
                .isEqualTo("jdbc:postgresql://h:5432/db?sslmode=require&ApplicationName=ff");
    }

    @Test
    void percentEncodedCredentialsAreDecoded() {
        Parsed jdbc = PostgresUrls.parse("postgresql://me%40corp:p%3Ass%2Fw%25rd+x@h/db");

        assertThat(jdbc.user()).isEqualTo("me@corp");
        assertThat(jdbc.password()).isEqualTo("p:ss/w%rd+x");
    }

    @Test
    void anUnencodedAtSignInThePasswordStillParses() {
        assertThat(PostgresUrls.parse("postgresql://u:p@ss@h/db"))
                .isEqualTo(new Parsed("jdbc:postgresql://h/db", "u", "p@ss"));
    }

    @Test
    void aUrlWithoutCredentialsHasNoUserOrPassword() {
        assertThat(PostgresUrls.parse("postgresql://localhost:5432/forgeflow"))
                .isEqualTo(new Parsed("jdbc:postgresql://localhost:5432/forgeflow", null, null));
    }

    @Test
    void aUserWithoutPasswordIsKept() {
        assertThat(PostgresUrls.parse("postgresql://postgres@127.0.0.1:5432/postgres"))
                .isEqualTo(new Parsed("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", null));
    }

    @Test
    void ipv6AndSeveralHostsPassThrough() {
        assertThat(PostgresUrls.parse("postgresql://u@[::1]:5432,h2:5433/db").jdbcUrl())
                .isEqualTo("jdbc:postgresql://[::1]:5432,h2:5433/db");
    }

    @Test
    void aJdbcUrlIsKeptAndItsCredentialsAreRead() {
        assertThat(PostgresUrls.parse("jdbc:postgresql://h:5432/db?user=ff&password=pw%21"))
                .isEqualTo(new Parsed("jdbc:postgresql://h:5432/db?user=ff&password=pw%21", "ff", "pw!"));
        assertThat(PostgresUrls.parse("jdbc:postgresql://h/db"))
                .isEqualTo(new Parsed("jdbc:postgresql://h/db", null, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "mysql://u:p@h/db", "h:5432/db", "postgresql://u:p@/db",
            "postgresql://u:p@h/db/extra"})
    void anythingElseIsRefusedWithHowToWriteIt(String url) {
        assertThatThrownBy(() -> PostgresUrls.parse(url))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postgresql://");
    }

    @Test
    void errorsNeverRepeatThePassword() {
        assertThatThrownBy(() -> PostgresUrls.parse("postgresql://u:topsecret%zz@h/db"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> PostgresUrls.parse("mysql://u:topsecret@h/db"))
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void theStringFormAndTheRedactedUrlHideThePassword() {
        assertThat(PostgresUrls.parse("postgresql://u:topsecret@h/db").toString()).doesNotContain("topsecret");
        assertThat(PostgresUrls.redact("postgresql://u:topsecret@h/db")).isEqualTo("postgresql://u:***@h/db");
        assertThat(PostgresUrls.redact("jdbc:postgresql://h/db?user=u&password=topsecret&ssl=true"))
                .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&ssl=true");
        assertThat(PostgresUrls.redact("postgresql://u@h/db")).isEqualTo("postgresql://u@h/db");
    }
}
