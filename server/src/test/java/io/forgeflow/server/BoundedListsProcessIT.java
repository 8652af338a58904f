package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestRuns;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lists that fit in memory, on a real node process with a 256 MiB heap ({@link NodeProcess}): 500 runs with 1 MiB
 * payloads and 1 MiB outputs, and 500 jobs with 1 MiB payloads (one in five of 60 KiB, which lists carry). Read with
 * {@code limit=500} page after page, by four clients at once: no payload over 64 KiB is listed and the cut ones say
 * so, every response is within the 4 MiB budget, following {@code next_cursor} reads every item exactly once, and the
 * node's used heap (its admin metrics, sampled meanwhile) stays under 256 MiB.
 */
class BoundedListsProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final long BUDGET = 4L * 1024 * 1024;
    static final int PAYLOAD_LIMIT = 64 * 1024;
    NodeProcess node;
    String runsJob;

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();

    /** Starts the node and, meanwhile, fills the database (the extension empties it before each test). */
    void fillTheDatabaseAndStartANode() throws Exception {
        CompletableFuture<NodeProcess> starting = CompletableFuture.supplyAsync(() -> {
            try {
                return NodeProcess.start("lists", "api", ClusterProcessIT.pgUrl(), Map.of());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            Run first = pg.insert(TestRuns.aRun());
            runsJob = first.jobId();
            for (int i = 1; i < 500; i++) {
                pg.insert(TestRuns.aRun().ofJob(runsJob));
            }
            pg.jdbi().useHandle(h -> {
                // 1 MiB of payload and of output per run; the output's 4,096-character tail is 12 KiB (three-byte
                // characters)
                h.execute("UPDATE runs SET payload = jsonb_build_object('blob', repeat('p', 1048576)), "
                        + "output = repeat('\u20ac', 349525)");
                h.execute("INSERT INTO jobs (id, name, executor, payload, status) "
                        + "SELECT gen_random_uuid(), 'big-' || g, 'shell', jsonb_build_object('command', 'true', "
                        + "'blob', repeat('p', CASE WHEN g % 5 = 0 THEN 60000 ELSE 1048576 END)), 'paused' "
                        + "FROM generate_series(1, 500) g");
            });
        } finally {
            node = starting.join(); // stopped after the test even if the filling failed
        }
    }

    @AfterEach
    void stopTheNode() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void fourClientsReadingEveryPageOfHugeRunsAndJobsStayWithinTheBudgetAndTheHeap() throws Exception {
        fillTheDatabaseAndStartANode();
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicLong maxHeap = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (reading.get()) {
                try {
                    maxHeap.accumulateAndGet(heapUsed(), Math::max);
                    Thread.sleep(20);
                } catch (Exception e) {
                    return;
                }
            }
        });
        sampler.start();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                clients.add(CompletableFuture.runAsync(() -> {
                    try {
                        readEveryRun();
                        readEveryJob();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).join();
        } finally {
            reading.set(false);
            sampler.join();
        }
        System.out.println("bounded lists: the node's used heap peaked at " + maxHeap.get() / (1024 * 1024) + " MiB");
        assertThat(node.isAlive()).isTrue();
        assertThat(node.logText()).doesNotContain("OutOfMemoryError");
        assertThat(maxHeap.get()).as("the node's used heap, sampled").isPositive().isLessThan(256L * 1024 * 1024);

        theDetailRoutesReturnTheWholeJobAndRun();
    }

    void theDetailRoutesReturnTheWholeJobAndRun() throws Exception {
        JsonNode jobs = json.readTree(get("/api/jobs?limit=10&status=paused").body()).get("items");
        JsonNode cut = null;
        for (JsonNode job : jobs) {
            if (job.get("payload_truncated").asBoolean()) {
                cut = job;
            }
        }
        assertThat(cut).as("a job listed without its payload").isNotNull();
        assertThat(cut.get("payload").isNull()).isTrue();
        JsonNode whole = json.readTree(get("/api/jobs/" + cut.get("id").asText()).body());
        assertThat(whole.get("payload_truncated").asBoolean()).isFalse();
        assertThat(whole.get("payload").get("blob").asText()).hasSize(1048576);

        JsonNode run = json.readTree(get("/api/runs?limit=1&job_id=" + runsJob).body()).get("items").get(0);
        JsonNode wholeRun = json.readTree(get("/api/runs/" + run.get("id").asText()).body());
        assertThat(wholeRun.get("output_truncated").asBoolean()).isFalse();
        assertThat(wholeRun.get("output").asText()).hasSize(349525);
    }

    void readEveryRun() throws Exception {
        Set<String> seen = new HashSet<>();
        List<Integer> pages = new ArrayList<>();
        String cursor = null;
        do {
            HttpResponse<byte[]> r = get("/api/runs?limit=500&job_id=" + runsJob + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat((long) r.body().length).as("a page of runs in bytes").isLessThanOrEqualTo(BUDGET);
            JsonNode page = json.readTree(r.body());
            pages.add(page.get("items").size());
            for (JsonNode run : page.get("items")) {
                assertThat(seen.add(run.get("id").asText())).as("run %s listed once", run.get("id")).isTrue();
                assertThat(run.get("output").asText()).hasSize(4096);
                assertThat(run.get("output_truncated").asBoolean()).isTrue();
            }
            cursor = page.get("next_cursor").isNull() ? null : page.get("next_cursor").asText();
        } while (cursor != null);
        assertThat(seen).hasSize(500);
        assertThat(pages).as("pages of runs (12.5 KiB each: about 327 fit in 4 MiB)").hasSizeGreaterThan(1)
                .allSatisfy(n -> assertThat(n).isPositive());
    }

    void readEveryJob() throws Exception {
        Set<String> seen = new HashSet<>();
        int listed = 0;
        int cut = 0;
        List<Integer> pages = new ArrayList<>();
        String cursor = null;
        do {
            HttpResponse<byte[]> r = get("/api/jobs?limit=500&status=paused" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat((long) r.body().length).as("a page of jobs in bytes").isLessThanOrEqualTo(BUDGET);
            JsonNode page = json.readTree(r.body());
            pages.add(page.get("items").size());
            for (JsonNode job : page.get("items")) {
                assertThat(seen.add(job.get("id").asText())).as("job %s listed once", job.get("id")).isTrue();
                assertThat(job.has("payload_truncated")).isTrue();
                if (job.get("payload_truncated").asBoolean()) {
                    cut++;
                    assertThat(job.get("payload").isNull()).isTrue();
                } else {
                    listed++;
                    assertThat(json.writeValueAsBytes(job.get("payload")).length).isLessThanOrEqualTo(PAYLOAD_LIMIT);
                }
            }
            cursor = page.get("next_cursor").isNull() ? null : page.get("next_cursor").asText();
        } while (cursor != null);
        assertThat(seen).hasSize(500);
        assertThat(listed).as("60 KiB payloads listed").isEqualTo(100);
        assertThat(cut).as("1 MiB payloads left out").isEqualTo(400);
        assertThat(pages).as("pages of jobs (100 of 60 KiB: about 68 fit in 4 MiB)").hasSizeGreaterThan(1);
    }

    long heapUsed() throws Exception {
        String text = new String(http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + node.adminPort + "/prometheus")).build(),
                HttpResponse.BodyHandlers.ofByteArray()).body(), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("(?m)^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*} (\\S+)$").matcher(text);
        long used = 0;
        while (m.find()) {
            used += (long) Double.parseDouble(m.group(1));
        }
        return used;
    }

    HttpResponse<byte[]> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(node.url(path))).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }
}
