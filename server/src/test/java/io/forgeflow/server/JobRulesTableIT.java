package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.job.JobRuleCases;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.util.PSQLException;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 40, the rules of a job defined once and checked alike: every bad submission of the shared table
 * ({@code job-rules.tsv}, domain's test jar) is refused by a real node's {@code POST /api/jobs} (422, its {@code field}
 * and a {@code code}) and, where enqueue takes its arguments, by {@code forgeflow.enqueue} (SQLSTATE 22023, the same
 * field as the error's column); neither stores anything.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class JobRulesTableIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("job-rules-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "rules-node"));

    /** enqueue's SQL type of each argument the table uses (the others are text). */
    static final Map<String, String> SQL_TYPES = Map.of("payload", "jsonb", "labels", "jsonb", "debounce", "jsonb",
            "throttle", "jsonb", "notify", "jsonb", "priority", "integer", "max_attempts", "integer",
            "timeout_seconds", "integer", "max_concurrent", "integer", "depends_on", "uuid[]");

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static List<JobRuleCases.Case> all() {
        return JobRuleCases.all();
    }

    static List<JobRuleCases.Case> forSql() {
        return JobRuleCases.forSql();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("all")
    void restRefusesEachCaseNamingItsField(JobRuleCases.Case c) throws Exception {
        long jobs = jobs();
        HttpResponse<String> reply = HTTP.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + APP.getLocalPort() + "/api/jobs"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(c.json()))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(422);
        JsonNode error = JSON.readTree(reply.body());
        assertThat(error.path("field").asText()).as(reply.body()).isEqualTo(c.field());
        assertThat(error.path("code").asText()).as(reply.body()).isNotBlank();
        assertThat(jobs()).isEqualTo(jobs);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forSql")
    void enqueueRefusesEachCaseNamingTheSameField(JobRuleCases.Case c) throws Exception {
        long jobs = jobs();
        JsonNode body = JSON.readTree(c.json());
        List<String> arguments = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String type = SQL_TYPES.getOrDefault(field.getKey(), "text");
            arguments.add(field.getKey() + " => CAST(? AS " + type + ")");
            JsonNode value = field.getValue();
            values.add(type.equals("jsonb") ? value.toString()
                    : type.equals("uuid[]") ? "{" + String.join(",", value.findValuesAsText("")) + "}"
                    : value.isTextual() ? value.asText() : value.toString());
        }
        try (Connection app = pg.dataSource().getConnection();
             PreparedStatement st = app.prepareStatement("SELECT * FROM forgeflow.enqueue("
                     + String.join(", ", arguments) + ")")) {
            for (int i = 0; i < values.size(); i++) {
                st.setString(i + 1, values.get(i));
            }
            assertThatThrownBy(st::executeQuery).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("22023");
                assertThat(e.getServerErrorMessage().getColumn()).as(e.getMessage()).isEqualTo(c.field());
            });
        }
        assertThat(jobs()).isEqualTo(jobs);
    }

    private static long jobs() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Long.class).one());
    }
}
