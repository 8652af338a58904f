package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /api/schedules/preview} over real HTTP, on the real evaluator. */
@ExtendWith(DropwizardExtensionsSupport.class)
class ScheduleResourceTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    Api api;

    @BeforeEach
    void reset() {
        ((RestTestApplication) APP.getApplication()).clock.set(Instant.parse("2026-03-01T12:00:00Z"));
        api = new Api(APP.getLocalPort());
    }

    static String q(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Test
    void aGapTickIsShownAtTheFirstValidInstantWithItsNote() {
        Api.Reply r = api.get("/api/schedules/preview?cron_expr=" + q("30 2 * * *") + "&timezone=America/New_York"
                + "&after=2026-03-07T12:00:00Z&count=2");

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"items\":["
                + "{\"at\":\"2026-03-08T07:00:00Z\",\"local\":\"2026-03-08T03:00:00-04:00\","
                + "\"note\":\"02:30 does not exist (DST gap): fired at the first valid instant\"},"
                + "{\"at\":\"2026-03-09T06:30:00Z\",\"local\":\"2026-03-09T02:30:00-04:00\"}]}");
    }

    @Test
    void countDefaultsToTenAndAfterToNowAndTheZoneToUtc() {
        Api.Reply r = api.get("/api/schedules/preview?cron_expr=" + q("0 0 L * *"));

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode items = r.json().get("items");
        assertThat(items).hasSize(10);
        assertThat(items.get(0).get("at").asText()).isEqualTo("2026-03-31T00:00:00Z");
        assertThat(items.get(0).get("local").asText()).isEqualTo("2026-03-31T00:00:00Z");
        assertThat(items.get(1).get("at").asText()).isEqualTo("2026-04-30T00:00:00Z");
    }

    @Test
    void anOffsetInAfterIsAccepted() {
        Api.Reply r = api.get("/api/schedules/preview?cron_expr=" + q("0 * * * *") + "&after=" + q("2026-05-01T10:30:00+02:00")
                + "&count=1");

        assertThat(r.json().get("items").get(0).get("at").asText()).isEqualTo("2026-05-01T09:00:00Z");
    }

    @ParameterizedTest(name = "{0} -> {1} naming {2}")
    @CsvSource(delimiter = '|', value = {
            "cron_expr=0+0+1%2CL+*+*                     | 422 | cron_expr",
            "cron_expr=61+*+*+*+*                        | 422 | cron_expr",
            "cron_expr=                                  | 422 | cron_expr",
            "timezone=UTC                                | 422 | cron_expr",
            "cron_expr=0+0+*+*+*&timezone=Mars/Olympus   | 422 | timezone",
            "cron_expr=0+0+*+*+*&count=0                 | 400 | count",
            "cron_expr=0+0+*+*+*&count=101               | 400 | count",
            "cron_expr=0+0+*+*+*&count=ten               | 400 | count",
            "cron_expr=0+0+*+*+*&after=yesterday         | 400 | after",
            "cron_expr=0+0+*+*+*&after=2026-01-01        | 400 | after",
            "cron_expr=0+0+*+*+*&cron=x                  | 400 | cron",
            "cron_expr=0+0+*+*+*&count=1&count=2         | 400 | count"})
    void badInputIsA4xxNamingTheField(String query, int status, String field) {
        Api.Reply r = api.get("/api/schedules/preview?" + query.trim());

        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("field").asText()).isEqualTo(field.trim());
        assertThat(r.json().get("error").asText()).isNotBlank();
    }
}
