package io.forgeflow.client;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Debounce and throttle (README "Flow control") on the wire, against a real HTTP server on loopback. */
class FlowControlTest {
    static final String JOB = """
            {"id": "job_1", "name": "sync", "executor": "shell", "payload": {"command": "true"}, "timezone": "UTC",
             "priority": 5, "max_attempts": 3, "timeout_seconds": 300, "catch_up": "skip", "status": "active",
             "created_at": "2026-07-01T09:30:00Z", "updated_at": "2026-07-01T09:30:00Z",
             "debounce": {"key": "user-42", "period_seconds": 30, "max_wait_seconds": 300, "edge": "trailing"},
             "throttle": {"key": "partner:7", "count": 5, "per_seconds": 2}%s}""";

    MockWebServer server;
    ForgeFlowClient client;

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.start();
        client = ForgeFlowClient.create(server.url("/").toString());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    void answer(int code, String body) {
        server.enqueue(new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json")
                .body(body).build());
    }

    String sent() throws InterruptedException {
        RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(r).isNotNull();
        return r.getBody().utf8();
    }

    @Test
    void aSubmissionSendsItsDebounceAndThrottleAndTheJobShowsThem() throws Exception {
        answer(201, JOB.formatted(""));

        SubmitResult result = client.submitJob(JobRequest.shell("sync", "true").debounce("user-42", 30)
                .throttle("partner:7", 5, 2).build());

        assertThat(client.json().readTree(sent())).isEqualTo(client.json().readTree("""
                {"name": "sync", "executor": "shell", "payload": {"command": "true"},
                 "debounce": {"key": "user-42", "period_seconds": 30},
                 "throttle": {"key": "partner:7", "count": 5, "per_seconds": 2}}"""));
        assertThat(result.created()).isTrue();
        assertThat(result.debouncedInto()).isNull();
        assertThat(result.debounced()).isFalse();
        assertThat(result.job().debounce()).isEqualTo(new Debounce("user-42", 30, 300, Debounce.TRAILING));
        assertThat(result.job().throttle()).isEqualTo(new Throttle("partner:7", 5, 2));
    }

    @Test
    void aJoinedSubmissionNamesTheRunItJoined() throws Exception {
        answer(200, JOB.formatted(", \"debounced_into\": \"run_9\""));

        SubmitResult result = client.submitJob(JobRequest.shell("sync", "true")
                .debounce("user-42", 10, null, Debounce.LEADING).build());

        assertThat(client.json().readTree(sent()).get("debounce")).isEqualTo(client.json().readTree("""
                {"key": "user-42", "period_seconds": 10, "edge": "leading"}"""));
        assertThat(result.created()).isFalse();
        assertThat(result.debouncedInto()).isEqualTo("run_9");
        assertThat(result.job().id()).isEqualTo("job_1");
    }

    @Test
    void anUpdateReplacesOrRemovesTheThrottle() throws Exception {
        answer(200, JOB.formatted(""));
        answer(200, JOB.formatted(""));

        client.updateJob("job_1", JobUpdate.create().throttle("partner:8", 10, 60));
        assertThat(client.json().readTree(sent())).isEqualTo(client.json().readTree("""
                {"throttle": {"key": "partner:8", "count": 10, "per_seconds": 60}}"""));
        client.updateJob("job_1", JobUpdate.create().noThrottle());
        assertThat(client.json().readTree(sent())).isEqualTo(client.json().readTree("{\"throttle\": null}"));
    }

    @Test
    void aBatchSendsAJobsThrottle() {
        BatchRequest batch = BatchRequest.builder().job("a", JobRequest.shell("call", "true")
                .throttle("partner:7", 5, 2).build()).build();

        assertThat(batch.body().get("jobs").get(0).get("throttle").toString())
                .isEqualTo("{\"key\":\"partner:7\",\"count\":5,\"per_seconds\":2}");
    }

    @Test
    void copiesKeepTheFlowControlAndAJobFromAnOlderServerHasNone() {
        JobRequest request = JobRequest.shell("sync", "true").debounce("k", 5).throttle("t", 1, 1).build();
        assertThat(request.withNotify(Notify.of("https://hooks.example/x")).debounce()).isEqualTo(request.debounce());
        assertThat(request.withDependsOn(java.util.List.of("p"), null).throttle()).isEqualTo(request.throttle());
        assertThat(request.withFlow(null, null).debounce()).isNull();
        assertThat(JobRequest.shell("sync", "true").build().debounce()).isNull();
    }
}
