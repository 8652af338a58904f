package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.server.OtlpReceiver.Received;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Traces (issue 31) with a real node process: the spans of a submission, its run and the run's attempts reach an OTLP
 * receiver on loopback (protobuf and JSON), the job's own work continues the client's trace, and tracing costs nothing
 * (no exporter thread) when no endpoint is configured and stops nothing when the receiver is down.
 */
class TracesProcessIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String CALLER_SPAN = "00f067aa0ba902b7";
    static final String TRACEPARENT = "00-" + TRACE + "-" + CALLER_SPAN + "-01";
    static final Pattern W3C = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-01");

    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();
    final List<AutoCloseable> closing = new ArrayList<>();
    /** What the job's HTTP target saw: one traceparent header per call; the first call answers 500. */
    final List<String> hookTraceparents = new CopyOnWriteArrayList<>();
    final AtomicInteger hookCalls = new AtomicInteger();
    String hookUrl;

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    @Test
    void submissionRunAndAttemptSpansReachTheReceiverOverProtobufAndTheWorkJoinsTheTrace() throws Exception {
        OtlpReceiver receiver = receiver();
        NodeProcess node = node("trace-proto", Map.of("FORGEFLOW_OTLP_ENDPOINT", receiver.endpoint(),
                "FORGEFLOW_TRACE_URL_TEMPLATE", "http://tempo.example/trace/{trace_id}"));

        JsonNode run = failOnceThenSucceed(node);
        assertThat(run.path("trace_id").asText()).isEqualTo(TRACE);
        assertThat(run.path("trace_url").asText()).isEqualTo("http://tempo.example/trace/" + TRACE);
        checkSpans(receiver, run, "trace-proto");
        assertThat(receiver.contentTypes).allMatch(t -> t.startsWith("application/x-protobuf"));

        // a shell job gets TRACEPARENT: the attempt's span, in the caller's trace
        String other = "0af7651916cd43dd8448eb211c80319c";
        JsonNode job = submit(node, "{\"name\": \"env\", \"executor\": \"shell\", \"payload\": {\"command\": "
                + "\"echo tp=$TRACEPARENT\"}}", "00-" + other + "-b7ad6b7169203331-01");
        JsonNode shell = awaitRun(node, job.path("id").asText(), "succeeded");
        Matcher printed = Pattern.compile("tp=00-([0-9a-f]{32})-([0-9a-f]{16})-01").matcher(shell.path("output").asText());
        assertThat(printed.find()).as(shell.path("output").asText()).isTrue();
        assertThat(printed.group(1)).isEqualTo(other);
        await(() -> receiver.named("forgeflow.attempt").stream().anyMatch(s -> s.traceId().equals(other)));
        Received attempt = receiver.named("forgeflow.attempt").stream().filter(s -> s.traceId().equals(other))
                .findFirst().orElseThrow();
        assertThat(printed.group(2)).isEqualTo(attempt.spanId());
    }

    @Test
    void theSameSpansArriveAsOtlpJson() throws Exception {
        OtlpReceiver receiver = receiver();
        NodeProcess node = node("trace-json", Map.of("FORGEFLOW_OTLP_ENDPOINT", receiver.endpoint() + "/v1/traces",
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"));

        JsonNode run = failOnceThenSucceed(node);
        assertThat(run.path("trace_url").isNull()).isTrue();
        checkSpans(receiver, run, "trace-json");
        assertThat(receiver.contentTypes).isNotEmpty().allMatch(t -> t.startsWith("application/json"));
    }

    @Test
    void withoutAnEndpointNoExporterRunsYetTheWorkStillContinuesTheCallersTrace() throws Exception {
        NodeProcess node = node("trace-off", Map.of());

        JsonNode run = failOnceThenSucceed(node);
        assertThat(run.path("trace_id").asText()).isEqualTo(TRACE);
        String threads = threadDump(node);
        assertThat(threads).contains("ff-exec").doesNotContain("BatchSpanProcessor").doesNotContain("opentelemetry");
        assertThat(node.logText()).doesNotContain("OTLP");
    }

    @Test
    void aReceiverThatIsDownIsReportedOnceAndJobsRunOn() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        NodeProcess node = node("trace-down", Map.of("FORGEFLOW_OTLP_ENDPOINT", "http://127.0.0.1:" + closed,
                "OTEL_JAVA_EXPORTER_OTLP_RETRY_DISABLED", "true"));

        String said = "OTLP receiver http://127.0.0.1:" + closed + "/v1/traces did not take";
        for (int i = 0; i < 4; i++) {
            JsonNode job = submit(node, "{\"name\": \"down-" + i + "\", \"executor\": \"shell\", \"payload\": "
                    + "{\"command\": \"true\"}}", TRACEPARENT);
            awaitRun(node, job.path("id").asText(), "succeeded");
            if (i == 0) {
                await(() -> node.logText().contains(said));
            }
            Thread.sleep(700); // past the batch delay: each job's spans are a failed export of their own
        }
        assertThat(node.isAlive()).isTrue();
        assertThat(count(node.logText(), said)).as(node.logText()).isEqualTo(1);
    }

    @Test
    void runsEndedByAnOperatorOrAJobControlRecordOneRunSpanEach() throws Exception {
        OtlpReceiver receiver = receiver();
        NodeProcess node = node("trace-ends", Map.of("FORGEFLOW_OTLP_ENDPOINT", receiver.endpoint()));
        String later = "\"run_at\": \"2099-01-01T00:00:00Z\"";

        // pending runs cancelled: by POST /api/runs/{id}/cancel, and by the job's pause, cancel and delete
        Map<String, String> how = Map.of("run-cancel", "/api/runs/%s/cancel", "pause", "/api/jobs/%s/pause",
                "job-cancel", "/api/jobs/%s/cancel", "delete", "/api/jobs/%s");
        Map<String, String> traces = new HashMap<>();
        for (Map.Entry<String, String> way : how.entrySet()) {
            String trace = randomTraceId();
            traces.put(way.getKey(), trace);
            JsonNode job = submit(node, "{\"name\": \"" + way.getKey() + "\", \"executor\": \"shell\", \"payload\": "
                    + "{\"command\": \"true\"}, " + later + "}", "00-" + trace + "-" + CALLER_SPAN + "-01");
            JsonNode run = awaitRun(node, job.path("id").asText(), "pending");
            String target = String.format(way.getValue(), way.getKey().equals("run-cancel")
                    ? run.path("id").asText() : job.path("id").asText());
            send(node, way.getKey().equals("delete") ? "DELETE" : "POST", target);
            awaitRun(node, job.path("id").asText(), "cancelled");
        }
        for (Map.Entry<String, String> way : traces.entrySet()) {
            await(() -> !spans(receiver, "forgeflow.run", way.getValue()).isEmpty());
        }
        Thread.sleep(1_000); // past the batch delay: a second span of the same run would have arrived
        for (Map.Entry<String, String> way : traces.entrySet()) {
            List<Received> runSpans = spans(receiver, "forgeflow.run", way.getValue());
            assertThat(runSpans).as(way.getKey()).hasSize(1);
            Received submit = spans(receiver, "forgeflow.submit", way.getValue()).get(0);
            assertThat(runSpans.get(0).parentSpanId()).as(way.getKey()).isEqualTo(submit.spanId());
            assertThat(runSpans.get(0).attribute("forgeflow.run.status")).as(way.getKey()).isEqualTo("cancelled");
        }

    }

    @Test
    void aRequeuedRunsSecondLifeIsANewRunSpanAChildOfTheFirst() throws Exception {
        OtlpReceiver receiver = receiver();
        NodeProcess node = node("trace-requeue", Map.of("FORGEFLOW_OTLP_ENDPOINT", receiver.endpoint()));
        String trace = randomTraceId();
        java.nio.file.Path mark = java.nio.file.Files.createTempDirectory("ff-requeue").resolve("mark");
        JsonNode job = submit(node, "{\"name\": \"requeued\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"test -f " + mark + " || { touch " + mark + "; exit 3; }\"}}",
                "00-" + trace + "-" + CALLER_SPAN + "-01");
        JsonNode dead = awaitRun(node, job.path("id").asText(), "dead");
        await(() -> spans(receiver, "forgeflow.run", trace).size() == 1);
        send(node, "POST", "/api/runs/" + dead.path("id").asText() + "/requeue");
        JsonNode done = awaitRun(node, job.path("id").asText(), "succeeded");
        assertThat(done.path("trace_id").asText()).isEqualTo(trace);
        await(() -> spans(receiver, "forgeflow.run", trace).size() >= 2
                && spans(receiver, "forgeflow.attempt", trace).size() >= 2);
        Thread.sleep(1_000);
        List<Received> lives = spans(receiver, "forgeflow.run", trace);
        assertThat(lives).hasSize(2);
        Received first = lives.stream().filter(s -> "dead".equals(s.attribute("forgeflow.run.status")))
                .findFirst().orElseThrow();
        Received second = lives.stream().filter(s -> "succeeded".equals(s.attribute("forgeflow.run.status")))
                .findFirst().orElseThrow();
        assertThat(second.spanId()).isNotEqualTo(first.spanId());
        assertThat(first.parentSpanId()).isEqualTo(spans(receiver, "forgeflow.submit", trace).get(0).spanId());
        assertThat(second.parentSpanId()).isEqualTo(first.spanId());
        Map<String, String> attemptParents = new HashMap<>();
        spans(receiver, "forgeflow.attempt", trace).forEach(a -> attemptParents.put(a.attribute("forgeflow.attempt"),
                a.parentSpanId()));
        assertThat(attemptParents).containsExactlyInAnyOrderEntriesOf(Map.of("1", first.spanId(),
                "2", second.spanId()));
    }

    @Test
    void runsTheLeaderEndsAfterAnExpiredLeaseRecordOneRunSpan() throws Exception {
        OtlpReceiver receiver = receiver();
        Map<String, String> shortLeases = Map.of("FORGEFLOW_LEASE_DURATION", "3s",
                "FORGEFLOW_HEARTBEAT_INTERVAL", "1s", "FORGEFLOW_SCHEDULER_TICK", "300ms");
        NodeProcess doomed = node("trace-doomed", merged(shortLeases, Map.of("FORGEFLOW_CONCURRENCY", "4")),
                "api,worker");
        String deadTrace = randomTraceId();
        String retriedTrace = randomTraceId();
        java.nio.file.Path mark = java.nio.file.Files.createTempDirectory("ff-lease").resolve("mark");
        JsonNode dies = submit(doomed, "{\"name\": \"dies\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"sleep 60\"}}", "00-" + deadTrace + "-" + CALLER_SPAN + "-01");
        JsonNode retried = submit(doomed, "{\"name\": \"retried\", \"executor\": \"shell\", \"max_attempts\": 2, "
                + "\"payload\": {\"command\": \"test -f " + mark + " || { touch " + mark + "; sleep 60; }\"}}",
                "00-" + retriedTrace + "-" + CALLER_SPAN + "-01");
        awaitRun(doomed, dies.path("id").asText(), "running");
        awaitRun(doomed, retried.path("id").asText(), "running");
        doomed.kill();

        NodeProcess leader = node("trace-leader", merged(shortLeases,
                Map.of("FORGEFLOW_OTLP_ENDPOINT", receiver.endpoint())), "api,scheduler,worker");
        JsonNode dead = awaitRun(leader, dies.path("id").asText(), "dead");
        awaitRun(leader, retried.path("id").asText(), "succeeded");
        await(() -> !spans(receiver, "forgeflow.run", deadTrace).isEmpty()
                && !spans(receiver, "forgeflow.run", retriedTrace).isEmpty());
        Thread.sleep(1_000);

        List<Received> deadRun = spans(receiver, "forgeflow.run", deadTrace);
        assertThat(deadRun).hasSize(1);
        assertThat(deadRun.get(0).attribute("forgeflow.run.status")).isEqualTo("dead");
        assertThat(deadRun.get(0).attribute("messaging.message.id")).isEqualTo(dead.path("id").asText());
        assertThat(deadRun.get(0).parentSpanId()).isEqualTo(CALLER_SPAN); // the doomed node did not trace
        assertThat(deadRun.get(0).attribute("forgeflow.error")).isNotBlank();
        List<Received> retriedRun = spans(receiver, "forgeflow.run", retriedTrace);
        assertThat(retriedRun).hasSize(1);
        assertThat(retriedRun.get(0).attribute("forgeflow.run.status")).isEqualTo("succeeded");
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** An http job whose target fails the first call: two attempts, the run succeeds. */
    JsonNode failOnceThenSucceed(NodeProcess node) throws Exception {
        JsonNode job = submit(node, "{\"name\": \"traced\", \"executor\": \"http\", \"max_attempts\": 3, "
                + "\"payload\": {\"url\": \"" + hookUrl + "\", \"method\": \"POST\"}}", TRACEPARENT);
        assertThat(job.path("trace_id").asText()).isEqualTo(TRACE);
        JsonNode run = awaitRun(node, job.path("id").asText(), "succeeded");
        assertThat(run.path("attempt").asInt()).isEqualTo(2);
        assertThat(hookTraceparents).hasSize(2);
        for (String header : hookTraceparents) {
            Matcher m = W3C.matcher(header);
            assertThat(m.matches()).as(header).isTrue();
            assertThat(m.group(1)).isEqualTo(TRACE);
        }
        return run;
    }

    void checkSpans(OtlpReceiver receiver, JsonNode run, String workerId) throws InterruptedException {
        await(() -> receiver.named("forgeflow.run").stream().anyMatch(s -> s.traceId().equals(TRACE)));
        Received submit = only(receiver, "forgeflow.submit");
        Received runSpan = only(receiver, "forgeflow.run");
        List<Received> attempts = receiver.named("forgeflow.attempt").stream()
                .filter(s -> s.traceId().equals(TRACE))
                .sorted(java.util.Comparator.comparing(s -> s.attribute("forgeflow.attempt")))
                .toList();

        assertThat(submit.parentSpanId()).isEqualTo(CALLER_SPAN);
        assertThat(submit.kind()).isEqualTo(4); // PRODUCER
        assertThat(submit.attribute("messaging.system")).isEqualTo("forgeflow");
        assertThat(submit.attribute("messaging.operation")).isEqualTo("publish");
        assertThat(submit.attribute("messaging.destination.name")).isEqualTo("default");
        assertThat(submit.attribute("forgeflow.job.id")).isEqualTo(run.path("job_id").asText());
        assertThat(submit.attribute("resource.service.name")).isEqualTo("forgeflow");

        assertThat(runSpan.parentSpanId()).isEqualTo(submit.spanId());
        assertThat(runSpan.attribute("messaging.message.id")).isEqualTo(run.path("id").asText());
        assertThat(runSpan.attribute("forgeflow.run.status")).isEqualTo("succeeded");
        assertThat(runSpan.attribute("messaging.destination.name")).isEqualTo("default");

        assertThat(attempts).hasSize(2);
        for (int i = 0; i < 2; i++) {
            Received a = attempts.get(i);
            assertThat(a.parentSpanId()).isEqualTo(runSpan.spanId());
            assertThat(a.kind()).isEqualTo(5); // CONSUMER
            assertThat(a.attribute("forgeflow.attempt")).isEqualTo(Integer.toString(i + 1));
            assertThat(a.attribute("messaging.system")).isEqualTo("forgeflow");
            assertThat(a.attribute("messaging.operation")).isEqualTo("process");
            assertThat(a.attribute("messaging.destination.name")).isEqualTo("default");
            assertThat(a.attribute("messaging.message.id")).isEqualTo(run.path("id").asText());
            assertThat(a.attribute("forgeflow.worker.id")).isEqualTo(workerId);
            assertThat(a.attribute("forgeflow.executor")).isEqualTo("http");
            assertThat(a.attributes()).containsKey("forgeflow.queue_wait_ms");
            // the target saw this attempt's span as its parent
            assertThat(hookTraceparents.get(i)).isEqualTo("00-" + TRACE + "-" + a.spanId() + "-01");
        }
        assertThat(attempts.get(0).attribute("forgeflow.attempt.outcome")).isEqualTo("failed");
        assertThat(attempts.get(0).attribute("forgeflow.error")).contains("500");
        assertThat(attempts.get(1).attribute("forgeflow.attempt.outcome")).isEqualTo("succeeded");
        assertThat(attempts.get(1).attributes()).doesNotContainKey("forgeflow.error");
    }

    static List<Received> spans(OtlpReceiver receiver, String name, String traceId) {
        return receiver.named(name).stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    static String randomTraceId() {
        return java.util.HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16)
                .putLong(java.util.concurrent.ThreadLocalRandom.current().nextLong() | 1)
                .putLong(java.util.concurrent.ThreadLocalRandom.current().nextLong()).array());
    }

    static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
        Map<String, String> all = new HashMap<>(a);
        all.putAll(b);
        return all;
    }

    void send(NodeProcess node, String method, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.url(path)))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isBetween(200, 299);
    }

    static Received only(OtlpReceiver receiver, String name) {
        List<Received> found = receiver.named(name).stream().filter(s -> s.traceId().equals(TRACE)).toList();
        assertThat(found).as(name + " in " + receiver.spans).hasSize(1);
        return found.get(0);
    }

    OtlpReceiver receiver() throws IOException {
        OtlpReceiver receiver = new OtlpReceiver();
        closing.add(receiver);
        return receiver;
    }

    NodeProcess node(String workerId, Map<String, String> extra) throws Exception {
        return node(workerId, extra, "api,scheduler,worker");
    }

    NodeProcess node(String workerId, Map<String, String> extra, String roles) throws Exception {
        HttpServer hook = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        hook.createContext("/hook", exchange -> {
            hookTraceparents.add(String.valueOf(exchange.getRequestHeaders().getFirst("traceparent")));
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(hookCalls.incrementAndGet() == 1 ? 500 : 200, -1);
            exchange.close();
        });
        hook.start();
        closing.add(() -> hook.stop(0));
        hookUrl = "http://127.0.0.1:" + hook.getAddress().getPort() + "/hook";
        String url = pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "user=" + pg.user()
                + (pg.password().isEmpty() ? "" : "&password=" + pg.password());
        Map<String, String> env = new HashMap<>(Map.of(
                "FORGEFLOW_POLL_INTERVAL", "300ms",
                "FORGEFLOW_RETRY_BASE", "100ms",
                "FORGEFLOW_HTTP_ALLOW_PRIVATE", "true",
                "OTEL_BSP_SCHEDULE_DELAY", "200"));
        env.putAll(extra);
        NodeProcess node = NodeProcess.start(workerId, roles, url, env);
        closing.add(node);
        return node;
    }

    JsonNode submit(NodeProcess node, String body, String traceparent) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.url("/api/jobs")))
                .header("Content-Type", "application/json").header("traceparent", traceparent)
                .header("tracestate", "vendor=forgeflow-test")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body());
    }

    JsonNode awaitRun(NodeProcess node, String jobId, String status) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.url("/api/runs?job_id=" + jobId)))
                    .build(), HttpResponse.BodyHandlers.ofString());
            JsonNode items = json.readTree(r.body()).path("items");
            if (items.size() > 0) {
                last = items.get(0);
                if (status.equals(last.path("status").asText())) {
                    return last;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("run of job " + jobId + " did not become " + status + ": " + last + "\n"
                + node.logText());
    }

    static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s");
            }
            Thread.sleep(100);
        }
    }

    static String threadDump(NodeProcess node) throws Exception {
        String jcmd = System.getProperty("java.home") + "/bin/jcmd";
        Process p = new ProcessBuilder(jcmd, Long.toString(node.pid()), "Thread.print").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    static int count(String text, String what) {
        int n = 0;
        for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
            n++;
        }
        return n;
    }
}
