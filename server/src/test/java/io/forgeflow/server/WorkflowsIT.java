package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.forgeflow.server.NodeApi.status;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Workflows (docs/API.md, "Workflows") through a real node on a real PostgreSQL, with real shell runs: a child runs
 * only after its parents succeed, parent failures follow each policy, batches release their on_complete job once.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WorkflowsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "workflow-worker"));

    final NodeApi api = new NodeApi(APP::getLocalPort);

    /** A shell job that appends its name and the time to {@code log}, after sleeping {@code sleep} seconds. */
    static String job(String name, Path log, double sleep, String extra) {
        return "{\"name\": \"" + name + "\", \"executor\": \"shell\", \"max_attempts\": 1, \"payload\": {\"command\": "
                + "\"sleep " + sleep + " && echo " + name + " >> " + log + "\"}" + extra + "}";
    }

    /** Issue 39: a cancelled child is refused a requeue while its parent is dead; the parent's requeue reopens it. */
    @Test
    void aChildCancelledByItsDeadParentIsRequeuedThroughTheParent() throws Exception {
        Path log = Files.createTempFile("workflow", ".log");
        Path fixed = Files.createTempFile("workflow", ".fixed");
        Files.delete(fixed);
        String a = api.submit("{\"name\": \"flaky-parent\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"test -e " + fixed + "\"}}");
        String b = api.submit(job("b", log, 0, ", \"depends_on\": [\"" + a + "\"]"));
        JsonNode aRun = api.awaitRun(a, status("dead"));
        JsonNode bRun = api.awaitRun(b, status("cancelled"));

        HttpResponse<String> refused = api.send("POST", "/api/runs/" + bRun.get("id").asText() + "/requeue", "");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
        JsonNode error = new com.fasterxml.jackson.databind.ObjectMapper().readTree(refused.body());
        assertThat(error.get("code").asText()).isEqualTo("parent_not_succeeded");
        assertThat(error.get("error").asText()).contains(a).contains("requeue that parent");
        assertThat(api.awaitRun(b, r -> true).get("status").asText()).isEqualTo("cancelled");

        Files.createFile(fixed);
        HttpResponse<String> parent = api.send("POST", "/api/runs/" + aRun.get("id").asText() + "/requeue", "");
        assertThat(parent.statusCode()).as(parent.body()).isEqualTo(200);

        api.awaitRun(a, status("succeeded"));
        api.awaitRun(b, status("succeeded"));
        assertThat(Files.readAllLines(log)).containsExactly("b");
    }

    @Test
    void aFansOutToBAndCWhichFanInToD() throws Exception {
        Path log = Files.createTempFile("workflow", ".log");
        String a = api.submit(job("a", log, 0.5, ""));
        String b = api.submit(job("b", log, 0.3, ", \"depends_on\": [\"" + a + "\"]"));
        String c = api.submit(job("c", log, 0.6, ", \"depends_on\": [\"" + a + "\"]"));
        String d = api.submit(job("d", log, 0, ", \"depends_on\": [\"" + b + "\", \"" + c + "\"]"));

        JsonNode waiting = api.read("/api/jobs/" + d);
        assertThat(waiting.get("depends_on")).extracting(JsonNode::asText).containsExactly(b, c);
        assertThat(waiting.get("on_parent_failure").asText()).isEqualTo("cancel");
        assertThat(api.awaitRun(d, r -> true).get("status").asText()).isEqualTo("waiting");

        JsonNode dRun = api.awaitRun(d, status("succeeded"));
        JsonNode bRun = api.awaitRun(b, status("succeeded"));
        JsonNode cRun = api.awaitRun(c, status("succeeded"));
        JsonNode aRun = api.awaitRun(a, status("succeeded"));
        List<String> order = Files.readAllLines(log);
        assertThat(order).hasSize(4);
        assertThat(order.get(0)).isEqualTo("a");
        assertThat(order.get(3)).isEqualTo("d");
        Instant dStarted = Instant.parse(dRun.get("started_at").asText());
        assertThat(dStarted).isAfterOrEqualTo(Instant.parse(bRun.get("finished_at").asText()))
                .isAfterOrEqualTo(Instant.parse(cRun.get("finished_at").asText()));
        assertThat(Instant.parse(bRun.get("started_at").asText()))
                .isAfterOrEqualTo(Instant.parse(aRun.get("finished_at").asText()));

        JsonNode view = api.read("/api/jobs/" + a);
        assertThat(view.get("parents")).isEmpty();
        assertThat(view.get("children")).extracting(n -> n.get("id").asText()).containsExactlyInAnyOrder(b, c);
        assertThat(view.get("children").get(0).get("run_status").asText()).isEqualTo("succeeded");
        JsonNode dView = api.read("/api/jobs/" + d);
        assertThat(dView.get("parents")).extracting(n -> n.get("id").asText()).containsExactly(b, c);
        assertThat(dView.get("children")).isEmpty();
    }

    @Test
    void aDeadParentCancelsItsDescendantsWithReasons() throws Exception {
        String a = api.submit("{\"name\": \"a-fails\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"exit 3\"}}");
        String b = api.submit(job("b", Path.of("/dev/null"), 0, ", \"depends_on\": [\"" + a + "\"]"));
        String c = api.submit(job("c", Path.of("/dev/null"), 0, ", \"depends_on\": [\"" + a + "\"]"));
        String d = api.submit(job("d", Path.of("/dev/null"), 0, ", \"depends_on\": [\"" + b + "\", \"" + c + "\"]"));

        api.awaitRun(a, status("dead"));
        JsonNode bRun = api.awaitRun(b, status("cancelled"));
        api.awaitRun(c, status("cancelled"));
        JsonNode dRun = api.awaitRun(d, status("cancelled"));
        assertThat(bRun.get("error").asText()).contains("parent job " + a).contains("a-fails").contains("dead");
        assertThat(dRun.get("error").asText()).contains("parent job " + b).contains("cancelled");
        assertThat(bRun.get("attempt").asInt()).isZero();
        assertThat(api.read("/api/jobs/" + d).get("status").asText()).isEqualTo("completed");
    }

    @Test
    void runPolicyRunsAfterAFailedParentAndWaitPolicyWaitsForARequeue() throws Exception {
        Path flag = Files.createTempFile("parent", ".flag");
        Files.delete(flag);
        // fails until the flag exists: dead at first, succeeds once requeued after the flag is made
        String parent = api.submit("{\"name\": \"flaky-parent\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"test -f " + flag + "\"}}");
        String runs = api.submit(job("runs-anyway", Path.of("/dev/null"), 0,
                ", \"depends_on\": [\"" + parent + "\"], \"on_parent_failure\": \"run\""));
        String waits = api.submit(job("waits", Path.of("/dev/null"), 0,
                ", \"depends_on\": [\"" + parent + "\"], \"on_parent_failure\": \"wait\""));

        JsonNode dead = api.awaitRun(parent, status("dead"));
        api.awaitRun(runs, status("succeeded"));
        Thread.sleep(1_000); // a leader pass or two: nothing may release the waiting child
        assertThat(api.awaitRun(waits, r -> true).get("status").asText()).isEqualTo("waiting");

        Files.createFile(flag);
        HttpResponse<String> requeued = api.send("POST", "/api/runs/" + dead.get("id").asText() + "/requeue", "");
        assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
        api.awaitRun(parent, status("succeeded"));
        api.awaitRun(waits, status("succeeded"));
    }

    @Test
    void aChildOfParentsThatEndedAlreadyIsDecidedAtSubmission() throws Exception {
        String ok = api.submit(job("done-already", Path.of("/dev/null"), 0, ""));
        api.awaitRun(ok, status("succeeded"));
        String child = api.submit(job("late-child", Path.of("/dev/null"), 0, ", \"depends_on\": [\"" + ok + "\"]"));
        api.awaitRun(child, status("succeeded"), Duration.ofSeconds(20));

        String failed = api.submit("{\"name\": \"failed-already\", \"executor\": \"shell\", \"max_attempts\": 1, "
                + "\"payload\": {\"command\": \"false\"}}");
        api.awaitRun(failed, status("dead"));
        HttpResponse<String> r = api.send("POST", "/api/jobs",
                job("orphan", Path.of("/dev/null"), 0, ", \"depends_on\": [\"" + failed + "\"]"));
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(api.json.readTree(r.body()).get("id").asText()).isNotBlank();
        JsonNode run = api.awaitRun(api.json.readTree(r.body()).get("id").asText(), r2 -> true);
        assertThat(run.get("status").asText()).isEqualTo("cancelled");
    }

    @Test
    void badDependenciesAreRefusedWith422NamingDependsOn() throws Exception {
        String cron = api.submit("{\"name\": \"nightly\", \"executor\": \"shell\", \"cron_expr\": \"0 3 * * *\", "
                + "\"payload\": {\"command\": \"true\"}}");
        String unknown = "01890000-0000-7000-8000-000000000000";
        for (String deps : List.of("\"depends_on\": [\"" + unknown + "\"]", "\"depends_on\": [\"" + cron + "\"]",
                "\"depends_on\": [\"not-an-id\"]", "\"depends_on\": []", "\"depends_on\": \"x\"",
                "\"depends_on\": [\"" + cron + "\", \"" + cron + "\"]")) {
            HttpResponse<String> r = api.send("POST", "/api/jobs", "{\"name\": \"c\", \"executor\": \"shell\", "
                    + "\"payload\": {\"command\": \"true\"}, " + deps + "}");
            assertThat(r.statusCode()).as(deps + " -> " + r.body()).isEqualTo(422);
            JsonNode error = api.json.readTree(r.body());
            assertThat(error.get("field").asText()).as(r.body()).isEqualTo("depends_on");
            assertThat(error.get("code").asText()).isEqualTo("validation_failed");
        }
        HttpResponse<String> recurring = api.send("POST", "/api/jobs", "{\"name\": \"c\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"true\"}, \"cron_expr\": \"* * * * *\", \"depends_on\": [\"" + cron + "\"]}");
        assertThat(recurring.statusCode()).isEqualTo(422);
        HttpResponse<String> policy = api.send("POST", "/api/jobs", "{\"name\": \"c\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"true\"}, \"on_parent_failure\": \"ignore\"}");
        assertThat(policy.statusCode()).isEqualTo(422);
        assertThat(api.json.readTree(policy.body()).get("field").asText()).isEqualTo("on_parent_failure");
        // nothing stored but the cron job
        assertThat(api.read("/api/jobs?limit=500").get("items")).extracting(j -> j.get("id").asText()).containsExactly(cron);
    }

    @Test
    void aCycleInABatchIsRefusedAndNothingIsStored() throws Exception {
        HttpResponse<String> r = api.send("POST", "/api/batches", "{\"jobs\": ["
                + "{\"ref\": \"a\", \"name\": \"a\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, \"depends_on\": [\"c\"]},"
                + "{\"ref\": \"b\", \"name\": \"b\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, \"depends_on\": [\"a\"]},"
                + "{\"ref\": \"c\", \"name\": \"c\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, \"depends_on\": [\"b\"]},"
                + "{\"ref\": \"d\", \"name\": \"d\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(422);
        JsonNode error = api.json.readTree(r.body());
        assertThat(error.get("field").asText()).matches("jobs\\[[0-2]\\]\\.depends_on");
        assertThat(error.get("error").asText()).contains("cycle").contains("a -> b -> c -> a");
        HttpResponse<String> badPayload = api.send("POST", "/api/batches", "{\"jobs\": ["
                + "{\"name\": \"a\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}},"
                + "{\"name\": \"b\", \"executor\": \"shell\", \"payload\": {}}]}");
        assertThat(badPayload.statusCode()).isEqualTo(422);
        assertThat(api.json.readTree(badPayload.body()).get("field").asText()).startsWith("jobs[1].payload");
        assertThat(api.read("/api/runs?limit=500").get("items")).isEmpty();
    }

    @Test
    void aBatchRunsItsWorkflowThenItsOnCompleteJobOnceWithTheCounts() throws Exception {
        Path log = Files.createTempFile("batch", ".log");
        String body = "{\"name\": \"nightly-import\", \"idempotency_key\": \"import-1\", \"jobs\": ["
                + "{\"ref\": \"a\", \"name\": \"extract\", \"executor\": \"shell\", \"max_attempts\": 1, \"payload\": {\"command\": \"echo a >> " + log + "\"}},"
                + "{\"ref\": \"b\", \"name\": \"load\", \"executor\": \"shell\", \"max_attempts\": 1, \"payload\": {\"command\": \"exit 1\"}, \"depends_on\": [\"a\"]},"
                + "{\"ref\": \"c\", \"name\": \"after-load\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, \"depends_on\": [\"b\"]},"
                + "{\"name\": \"side\", \"executor\": \"shell\", \"payload\": {\"command\": \"echo side >> " + log + "\"}}],"
                + "\"on_complete\": {\"name\": \"notify\", \"executor\": \"shell\", \"payload\": {\"command\": "
                + "\"echo done $FORGEFLOW_BATCH_ID $FORGEFLOW_BATCH_SUCCEEDED $FORGEFLOW_BATCH_DEAD $FORGEFLOW_BATCH_CANCELLED >> " + log + "\"}}}";
        HttpResponse<String> created = api.send("POST", "/api/batches", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode batch = api.json.readTree(created.body());
        String id = batch.get("id").asText();
        assertThat(batch.get("total").asInt()).isEqualTo(4);
        assertThat(batch.get("job_ids")).hasSize(4);
        assertThat(batch.get("refs").get("a").asText()).isEqualTo(batch.get("job_ids").get(0).asText());
        String then = batch.get("on_complete_job_id").asText();

        HttpResponse<String> replay = api.send("POST", "/api/batches", body);
        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(api.json.readTree(replay.body()).get("id").asText()).isEqualTo(id);
        assertThat(api.json.readTree(replay.body()).get("job_ids")).isEqualTo(batch.get("job_ids"));
        HttpResponse<String> other = api.send("POST", "/api/batches", body.replace("nightly-import", "other"));
        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(api.json.readTree(other.body()).get("code").asText()).isEqualTo("idempotency_conflict");

        JsonNode thenRun = api.awaitRun(then, status("succeeded"));
        JsonNode progress = api.read("/api/batches/" + id);
        assertThat(progress.get("status").asText()).isEqualTo("completed");
        assertThat(progress.get("succeeded").asInt()).isEqualTo(2);
        assertThat(progress.get("dead").asInt()).isEqualTo(1);
        assertThat(progress.get("cancelled").asInt()).isEqualTo(1);
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).containsExactlyInAnyOrder("a", "side", "done " + id + " 2 1 1");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("done " + id + " 2 1 1");
        assertThat(api.read("/api/jobs/" + then).get("payload").get("command").asText()).startsWith("echo done");
        assertThat(api.read("/api/jobs/" + batch.get("job_ids").get(1).asText()).get("batch_id").asText()).isEqualTo(id);
        assertThat(api.get("/api/batches/01890000-0000-7000-8000-000000000000").statusCode()).isEqualTo(404);
    }

    @Test
    void waitingRunsAreListedAndCountedAndCancellable() throws Exception {
        String parent = api.submit("{\"name\": \"later\", \"executor\": \"shell\", \"run_at\": \""
                + Instant.now().plus(Duration.ofHours(1)) + "\", \"payload\": {\"command\": \"true\"}}");
        List<String> children = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            children.add(api.submit(job("child-" + i, Path.of("/dev/null"), 0, ", \"depends_on\": [\"" + parent + "\"]")));
        }
        JsonNode waiting = api.read("/api/runs?status=waiting");
        assertThat(waiting.get("items")).hasSize(3);
        String metrics = api.get("/metrics").body();
        assertThat(metrics).contains("forgeflow_queue_depth{status=\"waiting\"} 3.0");
        HttpResponse<String> cancelled = api.send("POST", "/api/runs/" + waiting.get("items").get(0).get("id").asText()
                + "/cancel", "");
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);
        assertThat(api.json.readTree(cancelled.body()).get("status").asText()).isEqualTo("cancelled");
        HttpResponse<String> pause = api.send("POST", "/api/jobs/" + children.get(1) + "/pause", "");
        assertThat(pause.statusCode()).isEqualTo(200);
        assertThat(api.awaitRun(children.get(1), r -> true).get("status").asText()).isEqualTo("cancelled");
        HttpResponse<String> resume = api.send("POST", "/api/jobs/" + children.get(1) + "/resume", "");
        assertThat(resume.statusCode()).as(resume.body()).isEqualTo(200);
        assertThat(api.awaitRun(children.get(1), r -> true).get("status").asText()).isEqualTo("waiting");
    }
}
