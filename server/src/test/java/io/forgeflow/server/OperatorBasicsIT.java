package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator relies on, on one real node: metrics that promtool accepts (on /metrics and on the admin port's
 * /prometheus), every labelled series present from the start, the build's version and revision, health checks that
 * mean something, and the version that -v prints and /api/nodes reports.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OperatorBasicsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("observability-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "operator-basics"));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void promtoolFindsNoProblemInEitherExposition() throws Exception {
        for (String url : List.of(app("/metrics"), admin("/prometheus"))) {
            String text = get(url).body();
            assertThat(text).contains("forgeflow_runs_total", "jvm_memory_used_bytes",
                    "io_dropwizard_db_managed_pooled_data_source_postgresql_active",
                    "org_eclipse_jetty_util_thread_queued_thread_pool_dw_size");
            assertThat(text).as("Dropwizard's JVM metrics are not exported beside the JVM instrumentation's")
                    .doesNotContain("jvm_threads_count ", "jvm_memory_heap_used ");
            Promtool.Result check = Promtool.checkMetrics(text);
            assertThat(check.exitCode()).as("promtool check metrics on %s:\n%s", url, check.output()).isZero();
            assertThat(check.output()).as(url).isBlank();
        }
    }

    @Test
    void everyLabelledSeriesHasASampleFromTheStart() throws Exception {
        Scrape s = new Scrape(get(app("/metrics")).body());

        for (String what : ForgeFlowMetrics.FENCED_WRITES) {
            assertThat(s.text()).contains("forgeflow_fenced_writes_total{what=\"" + what + "\"} 0.0");
        }
        for (String executor : List.of("shell", "reverse")) {
            for (String outcome : List.of("succeeded", "failed", "timed_out", "cancelled", "snoozed", "gave_up")) {
                assertThat(s.text()).contains("forgeflow_attempts_total{executor=\"" + executor + "\",outcome=\""
                        + outcome + "\"}");
            }
            for (String status : List.of("succeeded", "pending", "dead", "cancelled")) {
                assertThat(s.text()).contains("forgeflow_runs_total{executor=\"" + executor + "\",status=\"" + status
                        + "\"}");
            }
            for (String counter : List.of("forgeflow_retries_total", "forgeflow_permanent_failures_total",
                    "forgeflow_retry_after_waits_total", "forgeflow_pickup_latency_seconds_count")) {
                assertThat(s.text()).contains(counter + "{executor=\"" + executor + "\"}");
            }
        }
        for (String table : List.of("runs", "jobs", "nodes")) {
            assertThat(s.text()).contains("forgeflow_retention_deleted_total{table=\"" + table + "\"}");
        }
        for (String status : List.of("waiting", "pending", "running", "succeeded", "dead", "cancelled")) {
            assertThat(s.text()).contains("forgeflow_queue_depth{status=\"" + status + "\"}");
        }
        assertThat(s.text()).contains("forgeflow_worker_slots{state=\"busy\"}", "forgeflow_worker_slots{state=\"free\"}");
    }

    @Test
    void buildInfoNamesTheVersionAndRevision() throws Exception {
        BuildInfo build = BuildInfo.current();
        assertThat(build.version()).isNotBlank().isNotEqualTo("unknown");

        String text = get(app("/metrics")).body();

        assertThat(text).contains("forgeflow_build_info{revision=\"" + build.revision() + "\",version=\""
                + build.version() + "\"} 1");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode nodes = json.readTree(get(app("/api/nodes")).body()).get("items");
        while (nodes.isEmpty() && System.nanoTime() < deadline) { // the node's next heartbeat writes its row
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
            nodes = json.readTree(get(app("/api/nodes")).body()).get("items");
        }
        assertThat(nodes).isNotEmpty();
        assertThat(nodes.get(0).get("version").asText()).isEqualTo(build.version());
    }

    @Test
    void theAdminHealthcheckHasTheNodesChecksAllHealthy() throws Exception {
        HttpResponse<String> r = get(admin("/healthcheck"));

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode checks = json.readTree(r.body());
        assertThat(checks.fieldNames()).toIterable()
                .contains("database", "migrations", "leader-election", "worker-loops");
        for (String name : List.of("database", "migrations", "leader-election", "worker-loops")) {
            assertThat(checks.get(name).get("healthy").asBoolean()).as(name + ": " + checks.get(name)).isTrue();
        }
        assertThat(checks.get("worker-loops").get("message").asText()).contains("loops alive");
        assertThat(checks.get("leader-election").get("message").asText()).contains("campaigning");
    }

    @Test
    void theJarPrintsItsVersionFromItsManifest() throws Exception {
        assertThat(NodeProcess.JAR).as("mvn verify packages the jar before the integration tests").exists();
        Process p = new ProcessBuilder(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-jar", NodeProcess.JAR.toString(), "-v").redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();

        assertThat(out).isEqualTo(BuildInfo.current().version());
        assertThat(p.exitValue()).isZero();
    }

    HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static String app(String path) {
        return "http://127.0.0.1:" + APP.getLocalPort() + path;
    }

    static String admin(String path) {
        return "http://127.0.0.1:" + APP.getAdminPort() + path;
    }

    /** Debian's promtool (package prometheus; scripts/check-deploy.sh installs it), run on an exposition. */
    static final class Promtool {
        record Result(int exitCode, String output) {
        }

        static Result checkMetrics(String exposition) throws Exception {
            java.nio.file.Path file = Files.createTempFile("exposition", ".txt");
            try {
                Files.writeString(file, exposition);
                Process p;
                try {
                    p = new ProcessBuilder("promtool", "check", "metrics").redirectInput(file.toFile())
                            .redirectErrorStream(true).start();
                } catch (java.io.IOException e) {
                    throw new AssertionError("promtool is missing: apt-get install prometheus (scripts/check-deploy.sh "
                            + "installs it)", e);
                }
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
                return new Result(p.exitValue(), out);
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }
}
