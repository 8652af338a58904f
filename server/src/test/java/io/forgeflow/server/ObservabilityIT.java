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

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watching one real node on a real PostgreSQL: metrics that move as runs move, the event stream with replay and
 * reset, and the nodes listing with gone nodes.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ObservabilityIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String WORKER = "obs-worker";
    static final Duration WITHIN = Duration.ofSeconds(30);

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("observability-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", WORKER));

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void metricsMoveAsRunsMove() throws Exception {
        Scrape before = scrape();
        assertThat(before.has("forgeflow_queue_lag_seconds")).isTrue();
        assertThat(before.has("forgeflow_retention_deleted_total")).isTrue();
        assertThat(before.has("jvm_memory_used_bytes")).as("JVM metrics").isTrue();
        assertThat(before.has("io_dropwizard_db_managed_pooled_data_source_postgresql_active")).as("pool metrics").isTrue();
        assertThat(before.has("org_eclipse_jetty_util_thread_queued_thread_pool_dw_size")).as("Jetty metrics").isTrue();

        String jobId = submit("{\"name\": \"measured\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}");
        awaitRun(jobId, "succeeded");

        Scrape after = awaitScrape(s -> s.value("forgeflow_queue_depth", "status=\"succeeded\"")
                > before.value("forgeflow_queue_depth", "status=\"succeeded\""));
        assertThat(after.value("forgeflow_runs_total", "status=\"succeeded\"", "executor=\"shell\""))
                .isEqualTo(before.value("forgeflow_runs_total", "status=\"succeeded\"", "executor=\"shell\"") + 1);
        assertThat(after.value("forgeflow_claims_total")).isGreaterThan(before.value("forgeflow_claims_total"));
        assertThat(after.value("forgeflow_run_duration_seconds_count", "executor=\"shell\"", "outcome=\"succeeded\""))
                .isGreaterThan(before.value("forgeflow_run_duration_seconds_count", "executor=\"shell\"",
                        "outcome=\"succeeded\""));
        assertThat(after.value("forgeflow_pickup_latency_seconds_count", "executor=\"shell\""))
                .isGreaterThan(before.value("forgeflow_pickup_latency_seconds_count", "executor=\"shell\""));
        assertThat(after.value("forgeflow_events_published_total"))
                .isGreaterThan(before.value("forgeflow_events_published_total"));
        assertThat(after.value("forgeflow_scheduler_leader")).isEqualTo(1);
        assertThat(after.value("forgeflow_worker_slots", "state=\"free\"")).isEqualTo(4);
    }

    @Test
    void aFailingRunCountsARetryThenADeadLetter() throws Exception {
        Scrape before = scrape();

        String jobId = submit("{\"name\": \"failing\", \"executor\": \"shell\", \"max_attempts\": 2, "
                + "\"payload\": {\"command\": \"exit 3\"}}");
        awaitRun(jobId, "dead");

        Scrape after = awaitScrape(s -> s.value("forgeflow_runs_total", "status=\"dead\"")
                > before.value("forgeflow_runs_total", "status=\"dead\""));
        assertThat(after.value("forgeflow_retries_total", "executor=\"shell\""))
                .isEqualTo(before.value("forgeflow_retries_total", "executor=\"shell\"") + 1);
        assertThat(after.value("forgeflow_runs_total", "status=\"pending\"", "executor=\"shell\""))
                .isEqualTo(before.value("forgeflow_runs_total", "status=\"pending\"", "executor=\"shell\"") + 1);
    }

    @Test
    void queueLagIsTheAgeOfTheOldestDueRunThatNobodyTakes() throws Exception {
        submit("{\"name\": \"nobody runs noop here\", \"executor\": \"noop\"}");

        Scrape lagging = awaitScrape(s -> s.value("forgeflow_queue_lag_seconds") > 0.5);

        assertThat(lagging.value("forgeflow_queue_depth", "status=\"pending\"")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void everyRunChangeIsStreamedWithItsFields() throws Exception {
        try (SseClient events = SseClient.connect(uri("/api/events"), null)) {
            assertThat(events.status).isEqualTo(200);
            assertThat(events.contentType).startsWith("text/event-stream");

            String jobId = submit("{\"name\": \"watched\", \"executor\": \"reverse\", \"payload\": {\"text\": \"abc\"}}");
            List<SseClient.Event> seen = events.until(e -> jobId.equals(e.data().path("job_id").asText())
                    && "succeeded".equals(e.status()), WITHIN);

            List<SseClient.Event> ofJob = seen.stream().filter(e -> jobId.equals(e.data().path("job_id").asText())).toList();
            assertThat(ofJob).extracting(SseClient.Event::status).containsExactly("pending", "running", "succeeded");
            assertThat(ofJob).allSatisfy(e -> {
                assertThat(e.type()).isEqualTo("run");
                assertThat(e.data().fieldNames()).toIterable()
                        .containsExactly("run_id", "job_id", "status", "attempt", "worker_id", "at");
            });
            SseClient.Event done = ofJob.get(2);
            assertThat(done.data().get("worker_id").asText()).isEqualTo(WORKER);
            assertThat(done.data().get("attempt").asInt()).isEqualTo(1);
            assertThat(done.data().get("at").asText()).endsWith("Z");
            assertThat(ofJob.get(0).data().get("worker_id").isNull()).isTrue();
            assertThat(sequences(ofJob)).isSorted().doesNotHaveDuplicates();
            assertThat(done.runId()).isEqualTo(ofJob.get(0).runId());
        }
    }

    @Test
    void aClientThatReconnectsWithLastEventIdIsGivenWhatItMissedInOrder() throws Exception {
        String lastSeen;
        try (SseClient events = SseClient.connect(uri("/api/events"), null)) {
            String first = submit("{\"name\": \"seen\", \"executor\": \"reverse\", \"payload\": {\"text\": \"a\"}}");
            lastSeen = events.until(e -> first.equals(e.data().path("job_id").asText())
                    && "succeeded".equals(e.status()), WITHIN).stream().reduce((a, b) -> b).orElseThrow().id();
        }
        String missed = submit("{\"name\": \"missed\", \"executor\": \"reverse\", \"payload\": {\"text\": \"b\"}}");
        awaitRun(missed, "succeeded");

        try (SseClient back = SseClient.connect(uri("/api/events"), lastSeen)) {
            List<SseClient.Event> replayed = back.until(e -> missed.equals(e.data().path("job_id").asText())
                    && "succeeded".equals(e.status()), WITHIN);

            assertThat(replayed).noneMatch(e -> "reset".equals(e.type()));
            assertThat(replayed.stream().filter(e -> missed.equals(e.data().path("job_id").asText())))
                    .extracting(SseClient.Event::status).containsExactly("pending", "running", "succeeded");
            assertThat(sequence(replayed.get(0).id())).isEqualTo(sequence(lastSeen) + 1);
            assertThat(sequences(replayed)).isSorted().doesNotHaveDuplicates();
        }
    }

    @Test
    void anUnknownOrTooOldLastEventIdIsAnsweredWithAReset() throws Exception {
        String current;
        try (SseClient stranger = SseClient.connect(uri("/api/events"), "another-node-42")) {
            SseClient.Event reset = stranger.next(WITHIN);
            assertThat(reset.type()).isEqualTo("reset");
            assertThat(reset.data().get("reason").asText()).contains("not issued by this server");
            assertThat(reset.data().get("last_event_id").asText()).isEqualTo(reset.id());
            current = reset.id();
        }
        // the buffer keeps 20 events (observability-test-config.yml): push the reset position out of it
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            jobs.add(submit("{\"name\": \"filler\", \"executor\": \"reverse\", \"payload\": {\"text\": \"x\"}}"));
        }
        for (String job : jobs) {
            awaitRun(job, "succeeded");
        }
        try (SseClient events = SseClient.connect(uri("/api/events"), null)) {
            String probe = submit("{\"name\": \"probe\", \"executor\": \"reverse\", \"payload\": {\"text\": \"p\"}}");
            events.until(e -> probe.equals(e.data().path("job_id").asText()) && "succeeded".equals(e.status()), WITHIN);
        }

        try (SseClient tooOld = SseClient.connect(uri("/api/events"), current)) {
            SseClient.Event reset = tooOld.next(WITHIN);
            assertThat(reset.type()).isEqualTo("reset");
            assertThat(reset.data().get("reason").asText()).contains("older than the last 20 events");
            assertThat(sequence(reset.id())).isGreaterThan(sequence(current) + 20);
        }
    }

    @Test
    void anIdleStreamGetsKeepAliveComments() throws Exception {
        try (SseClient idle = SseClient.connect(uri("/api/events"), null)) {
            int first = idle.comments.get();
            long deadline = System.nanoTime() + WITHIN.toNanos();
            while (idle.comments.get() < first + 2 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20); // polling a condition with a deadline
            }
            assertThat(idle.comments.get()).as("keep-alive comments (every 1 s here)").isGreaterThanOrEqualTo(first + 2);
        }
    }

    @Test
    void aHundredIdleStreamsHoldNoRequestThreads() throws Exception {
        HttpClient shared = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        List<SseClient> streams = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                streams.add(SseClient.connect(shared, uri("/api/events"), null));
            }
            assertThat(streams).allSatisfy(s -> assertThat(s.status).isEqualTo(200));

            Scrape open = awaitScrape(s -> s.value("forgeflow_event_streams") >= 100);
            // a thread per stream would take the pool past 100 threads; suspended requests hold none
            assertThat(open.value("org_eclipse_jetty_util_thread_queued_thread_pool_dw_size")).isLessThan(100);

            String jobId = submit("{\"name\": \"fan-out\", \"executor\": \"reverse\", \"payload\": {\"text\": \"f\"}}");
            for (SseClient stream : streams) {
                stream.until(e -> jobId.equals(e.data().path("job_id").asText()) && "succeeded".equals(e.status()), WITHIN);
            }
        } finally {
            streams.forEach(SseClient::close);
        }
        awaitScrape(s -> s.value("forgeflow_event_streams") < 100);
    }

    @Test
    void nodesListsThisNodeLiveAndACrashedOneAsGoneUntilItIsDropped() throws Exception {
        // heartbeat 2 s: live within 6 s, listed as gone until 20 s
        pg.jdbi().useHandle(h -> {
            h.execute("INSERT INTO nodes (worker_id, roles, version, started_at, last_seen_at, leader) VALUES "
                    + "('crashed-recently', '{worker}', '0.1.0', now() - interval '1 hour', now() - interval '10 seconds', false), "
                    + "('crashed-long-ago', '{worker}', '0.1.0', now() - interval '1 hour', now() - interval '60 seconds', false)");
        });

        JsonNode items = awaitNodes(n -> n.size() >= 2);

        assertThat(items.findValuesAsText("worker_id")).contains(WORKER, "crashed-recently").doesNotContain("crashed-long-ago");
        for (JsonNode node : items) {
            String id = node.get("worker_id").asText();
            assertThat(node.get("status").asText()).isEqualTo(id.equals(WORKER) ? "live" : "gone");
            assertThat(node.has("last_seen_at")).isTrue();
            assertThat(node.has("running")).isTrue();
            assertThat(node.has("leader")).isTrue();
        }
    }

    JsonNode awaitNodes(Predicate<JsonNode> condition) throws Exception {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        JsonNode items = null;
        while (System.nanoTime() < deadline) {
            items = json.readTree(get("/api/nodes").body()).get("items");
            if (condition.test(items)) {
                return items;
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
        throw new AssertionError("nodes never matched; last: " + items);
    }

    static List<Long> sequences(List<SseClient.Event> events) {
        return events.stream().map(e -> sequence(e.id())).toList();
    }

    static long sequence(String id) {
        return Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
    }

    Scrape scrape() throws Exception {
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        return new Scrape(r.body());
    }

    Scrape awaitScrape(Predicate<Scrape> condition) throws Exception {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        Scrape last = null;
        while (System.nanoTime() < deadline) {
            last = scrape();
            if (condition.test(last)) {
                return last;
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling a condition with a deadline
        }
        throw new AssertionError("the metrics never matched; last scrape:\n" + last);
    }

    String submit(String body) throws Exception {
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(uri("/api/jobs"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return json.readTree(created.body()).get("id").asText();
    }

    JsonNode awaitRun(String jobId, String status) throws Exception {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            JsonNode items = json.readTree(get("/api/runs?job_id=" + jobId).body()).get("items");
            if (items.size() > 0) {
                last = items.get(0);
                if (status.equals(last.get("status").asText())) {
                    return last;
                }
            }
            TimeUnit.MILLISECONDS.sleep(50); // polling a condition with a deadline
        }
        throw new AssertionError("run of job " + jobId + " never became " + status + "; last seen: " + last);
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + APP.getLocalPort() + path);
    }
}
