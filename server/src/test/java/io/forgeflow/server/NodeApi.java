package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** The REST API of a node on loopback, as a test speaks it: JSON in and out, and waits for a job's run. */
final class NodeApi {
    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();
    private final IntSupplier port;

    NodeApi(IntSupplier port) {
        this.port = port;
    }

    /** Submits a job (201 expected) and returns its id. */
    String submit(String body) throws Exception {
        HttpResponse<String> created = send("POST", "/api/jobs", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return json.readTree(created.body()).get("id").asText();
    }

    JsonNode read(String path) throws Exception {
        HttpResponse<String> r = get(path);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }

    /** The newest run of a job once it meets {@code condition} (within {@code within}). */
    JsonNode awaitRun(String jobId, Predicate<JsonNode> condition, Duration within) throws Exception {
        Instant deadline = Instant.now().plus(within);
        JsonNode last = null;
        while (Instant.now().isBefore(deadline)) {
            JsonNode page = json.readTree(get("/api/runs?job_id=" + jobId).body());
            if (page.get("items").size() > 0) {
                last = page.get("items").get(0);
                if (condition.test(last)) {
                    return last;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the run of job " + jobId + " did not get there in time; last seen: " + last);
    }

    JsonNode awaitRun(String jobId, Predicate<JsonNode> condition) throws Exception {
        return awaitRun(jobId, condition, Duration.ofSeconds(60));
    }

    static Predicate<JsonNode> status(String status) {
        return r -> status.equals(r.get("status").asText());
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> send(String method, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port.getAsInt() + path);
    }
}
