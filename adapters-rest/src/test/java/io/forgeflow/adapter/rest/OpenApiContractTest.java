package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.NodeRegistry.NodeInfo;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunChange;
import io.forgeflow.domain.run.RunStatus;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document ({@code GET /api/openapi.json}) cannot drift from the code: every route and every error status
 * the document lists is exercised on a real server on loopback and its body validated against the document's schema
 * (JSON Schema 2020-12); every JAX-RS route is in the document and every documented route is a JAX-RS route (or a
 * servlet it marks); the document is well-formed OpenAPI 3.1 whose every {@code $ref} resolves. Run the class whole:
 * its last check ({@link #everyDocumentedResponseWasExercised}) needs every test before it.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OpenApiContractTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-openapi-test.yml"));
    static final DropwizardAppExtension<RestTestConfiguration> AUTH = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-auth-test.yml"));
    static final OpenApiContract CONTRACT = OpenApiContract.load();
    static final String UNKNOWN_ID = "0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b";
    static final String ONE_OFF = "{\"name\": \"report\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}";
    static final String RECURRING = "{\"name\": \"nightly\", \"executor\": \"http\", \"cron_expr\": \"0 3 * * *\","
            + " \"timezone\": \"Europe/Paris\", \"queue\": \"reports\", \"concurrency_key\": \"tenant-1\","
            + " \"max_concurrent\": 2, \"overlap\": \"skip\", \"idempotency_key\": \"nightly-1\","
            + " \"payload\": {\"url\": \"https://example.com/hook\", \"headers\": {\"Authorization\": \"Bearer s\"}}}";
    /** A token without each scope (rest-auth-test.yml), to see the 403 of every route. */
    static final Map<String, String> LACKING = Map.of("read", "submit-token-0123456789",
            "operate", "read-token-0123456789", "submit", "read-token-0123456789", "admin", "read-token-0123456789");

    RestTestApplication app;
    Api api;

    @BeforeEach
    void reset() {
        app = (RestTestApplication) APP.getApplication();
        app.store.clear();
        app.workflows.clear();
        app.notReadyBecause.set(null);
        app.databaseAway.set(false);
        api = new Api(APP.getLocalPort());
    }

    /** Validates the reply against the document and gives it back; fails naming every problem. */
    static Api.Reply valid(String method, String path, Api.Reply reply, int status) {
        String shown = reply.body().length() > 600 ? reply.body().substring(0, 600) + "..." : reply.body();
        assertThat(reply.status()).as(method + " " + path + ": " + shown).isEqualTo(status);
        List<String> problems = CONTRACT.problems(method, path, reply.status(), reply.header("Content-Type"),
                reply.body());
        assertThat(problems).as(method + " " + path + " " + status + " against openapi.json").isEmpty();
        return reply;
    }

    Api.Reply get(String path, int status) {
        return valid("GET", path, api.get(path), status);
    }

    Api.Reply post(String path, int status) {
        return valid("POST", path, api.post(path), status);
    }

    Api.Reply post(String path, String body, int status) {
        return valid("POST", path, api.post(path, body), status);
    }

    Api.Reply patch(String path, String body, int status) {
        return valid("PATCH", path, api.patch(path, body), status);
    }

    Api.Reply put(String path, String body, int status) {
        return valid("PUT", path, api.put(path, body), status);
    }

    Api.Reply delete(String path, int status) {
        return valid("DELETE", path, api.delete(path), status);
    }

    String create(String body) {
        return post("/api/jobs", body, 201).json().get("id").asText();
    }

    /**
     * A body over the limit, sent while its answer is read: the 413 comes at once, before the body, on a connection
     * then closed (java.net.http writes the whole body first and may see the reset instead of the answer).
     */
    Api.Reply oversized(String method, String path, String body) {
        try {
            RawHttp.Reply r = new RawHttp(APP.getLocalPort()).send(new RawHttp.Request(method, path,
                    Map.of("Content-Type", "application/json"), body.getBytes(StandardCharsets.UTF_8), false));
            Map<String, List<String>> headers = new java.util.HashMap<>();
            r.headers().forEach((k, v) -> headers.put(k, List.of(v)));
            return new Api.Reply(r.status(), java.net.http.HttpHeaders.of(headers, (a, b) -> true), r.body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String big() {
        return "{\"name\": \"" + "x".repeat((1 << 20) + 10) + "\"}";
    }

    @Test
    void theDocumentIsServedWithoutATokenEvenWhenTheNodeHasTokens() throws Exception {
        Api stranger = new Api(AUTH.getLocalPort());

        Api.Reply r = valid("GET", "/api/openapi.json", stranger.get("/api/openapi.json"), 200);

        assertThat(r.header("Content-Type")).startsWith("application/json");
        assertThat(OpenApiContract.JSON.readTree(r.body())).isEqualTo(CONTRACT.document);
        assertThat(stranger.get("/api/jobs").status()).as("the rest still needs a token").isEqualTo(401);
        assertThat(stranger.post("/api/openapi.json").status()).as("only reading it is public").isEqualTo(401);
        valid("GET", "/api/openapi.json", api.get("/api/openapi.json"), 200);
    }

    @Test
    void theDocumentIsWellFormedOpenApi31() {
        JsonNode doc = CONTRACT.document;
        // an OpenAPI parser reads it as 3.1 without a single message (unknown or misplaced keys, bad $refs...)
        io.swagger.v3.parser.core.models.ParseOptions options = new io.swagger.v3.parser.core.models.ParseOptions();
        options.setResolve(true);
        io.swagger.v3.parser.core.models.SwaggerParseResult parsed = new io.swagger.v3.parser.OpenAPIV3Parser()
                .readContents(new String(OpenApiResource.load(), StandardCharsets.UTF_8), null, options);
        assertThat(parsed.getMessages()).as("the OpenAPI parser's messages").isEmpty();
        assertThat(parsed.getOpenAPI().getSpecVersion()).isEqualTo(io.swagger.v3.oas.models.SpecVersion.V31);
        assertThat(parsed.getOpenAPI().getPaths()).hasSize(doc.get("paths").size());
        assertThat(parsed.getOpenAPI().getComponents().getSchemas()).containsKeys("Job", "Run", "Attempt", "Queue",
                "Node", "Error", "JobPage", "RunPage", "QueueList", "NodeList", "Tenant", "TenantList");
        assertThat(doc.get("openapi").asText()).startsWith("3.1.");
        assertThat(doc.at("/info/title").asText()).isNotBlank();
        assertThat(doc.at("/info/version").asText()).isNotBlank();
        assertThat(doc.at("/components/securitySchemes/bearer/scheme").asText()).isEqualTo("bearer");
        Set<String> operationIds = new TreeSet<>();
        for (OpenApiContract.Operation op : CONTRACT.operations()) {
            assertThat(op.path()).startsWith("/");
            assertThat(operationIds.add(op.node().get("operationId").asText())).as("unique operationId of " + op.key())
                    .isTrue();
            assertThat(op.node().path("responses").size()).as(op.key() + " has responses").isPositive();
            Set<String> declared = new TreeSet<>();
            for (JsonNode p : op.node().path("parameters")) {
                JsonNode param = p.has("$ref") ? CONTRACT.resolve(p.get("$ref").asText()) : p;
                assertThat(param).as("parameter " + p + " of " + op.key()).isNotNull();
                assertThat(param.get("in").asText()).isIn("path", "query", "header", "cookie");
                if (param.get("in").asText().equals("path")) {
                    assertThat(param.get("required").asBoolean()).isTrue();
                    declared.add(param.get("name").asText());
                }
            }
            Set<String> inTemplate = new TreeSet<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{([^}]+)}").matcher(op.path());
            while (m.find()) {
                inTemplate.add(m.group(1));
            }
            assertThat(declared).as("path parameters of " + op.key()).isEqualTo(inTemplate);
            for (Iterator<String> it = op.node().path("responses").fieldNames(); it.hasNext(); ) {
                assertThat(it.next()).matches("default|[1-5][0-9X]{2}");
            }
            if (op.scope() != null) {
                assertThat(op.node().at("/security/0/bearer/0").asText()).as(op.key()).isEqualTo(op.scope());
            } else {
                assertThat(op.node().get("security")).as(op.key() + " is public").isEmpty();
            }
        }
        List<String> unresolved = new ArrayList<>();
        refs(doc, "#", unresolved);
        assertThat(unresolved).as("$refs that resolve to nothing").isEmpty();
        // every component schema compiles and its $refs load
        for (Iterator<String> it = doc.at("/components/schemas").fieldNames(); it.hasNext(); ) {
            CONTRACT.validate("#/components/schemas/" + it.next(), OpenApiContract.JSON.createObjectNode());
        }
    }

    private static void refs(JsonNode node, String at, List<String> unresolved) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && CONTRACT.resolve(ref.asText()) == null) {
                unresolved.add(at + ": " + ref.asText());
            }
            node.fields().forEachRemaining(e -> refs(e.getValue(), at + "/" + e.getKey(), unresolved));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                refs(node.get(i), at + "/" + i, unresolved);
            }
        }
    }

    @Test
    void everyJaxRsRouteIsDocumentedAndEveryDocumentedRouteExists() throws Exception {
        Set<String> code = jaxRsRoutes();
        Set<String> documented = CONTRACT.operations().stream().filter(op -> !op.servlet())
                .map(OpenApiContract.Operation::key).collect(Collectors.toCollection(TreeSet::new));

        assertThat(code).as("the resources have routes").contains("GET /api/jobs", "GET /api/openapi.json");
        assertThat(documented).as("routes of the document (left) and of the JAX-RS resources (right)")
                .isEqualTo(code);
    }

    @Test
    void everyOperationNamesTheScopeTheServerEnforces() {
        for (OpenApiContract.Operation op : CONTRACT.operations()) {
            if (op.servlet()) {
                continue;
            }
            String path = concrete(op.path());
            Optional<Scope> enforced = RouteScopes.required(op.method(), path);
            assertThat(op.scope()).as(op.key()).isEqualTo(enforced.map(Scope::wireName).orElse(null));
        }
    }

    @Test
    void theValidatorCatchesAWrongTypeAMissingFieldAnUndocumentedStatusAndAnUnknownRoute() throws Exception {
        String job = create(ONE_OFF);
        String body = api.get("/api/jobs/" + job).body();
        String path = "/api/jobs/" + job;
        assertThat(CONTRACT.problems("GET", path, 200, "application/json", body)).isEmpty();

        assertThat(CONTRACT.problems("GET", path, 200, "application/json", changed(body, "priority", "\"5\"")))
                .as("a wrong type").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 200, "application/json", changed(body, "status", null)))
                .as("a required field missing").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 200, "application/json", changed(body, "name", "null")))
                .as("null where the field is not nullable").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 200, "application/json", changed(body, "status", "\"asleep\"")))
                .as("a status the document does not know").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 200, "application/json", changed(body, "created_at", "\"yesterday\"")))
                .as("a timestamp that is not one").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 200, "application/json", changed(body, "labels", "{\"a\": 1}")))
                .as("a wrong type in an optional field").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 200, "application/json", changed(body, "shiny_new_field", "1")))
                .as("a field the document does not know yet is fine: the contract grows").isEmpty();
        assertThat(CONTRACT.problems("GET", path, 201, "application/json", body))
                .as("a status the route does not document").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 404, "application/json", "{\"error\": \"x\"}"))
                .as("an error without its code").isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 404, "application/json", "{\"error\": \"x\", \"code\": \"conflict\"}"))
                .as("the code of another status").isNotEmpty();
        assertThat(CONTRACT.problems("GET", "/api/jobz", 200, "application/json", "{}")).as("an unknown route")
                .isNotEmpty();
        assertThat(CONTRACT.problems("GET", path, 200, "text/plain", body)).as("another media type").isNotEmpty();
    }

    /** {@code body} with {@code field} set to the JSON {@code value} (removed when null). */
    private static String changed(String body, String field, String value) throws Exception {
        com.fasterxml.jackson.databind.node.ObjectNode node =
                (com.fasterxml.jackson.databind.node.ObjectNode) OpenApiContract.JSON.readTree(body);
        if (value == null) {
            node.remove(field);
        } else {
            node.set(field, OpenApiContract.JSON.readTree(value));
        }
        return node.toString();
    }

    @Test
    void jobs() {
        String oneOff = create(ONE_OFF);
        String recurring = create(RECURRING);
        post("/api/jobs", RECURRING, 200); // an idempotent replay
        post("/api/jobs", RECURRING.replace("nightly\"", "nightly-2\""), 409);
        post("/api/jobs", "{not json", 400);
        post("/api/jobs", "{\"name\": \"x\", \"executor\": \"shell\", \"priority\": 12}", 422);
        valid("POST", "/api/jobs", api.post("/api/jobs", ONE_OFF, "text/plain"), 415);
        valid("POST", "/api/jobs", oversized("POST", "/api/jobs", big()), 413);

        get("/api/jobs", 200);
        get("/api/jobs?status=active&limit=1", 200);
        get("/api/jobs?limit=many", 400);
        get("/api/jobs?queue=default&label=team:billing&label=env:prod&name_prefix=night", 200);
        get("/api/jobs?label=team", 422);
        get("/api/jobs/" + oneOff, 200);
        get("/api/jobs/" + recurring, 200);
        get("/api/jobs/" + UNKNOWN_ID, 404);

        patch("/api/jobs/" + recurring, "{\"cron_expr\": \"0 4 * * *\", \"priority\": 2}", 200);
        patch("/api/jobs/" + recurring + "?pending=keep", "{\"name\": \"nightly-renamed\"}", 200);
        patch("/api/jobs/" + recurring + "?pending=sometimes", "{\"priority\": 3}", 400);
        patch("/api/jobs/" + recurring, "{\"priority\": 30}", 422);
        patch("/api/jobs/" + UNKNOWN_ID, "{\"priority\": 3}", 404);
        valid("PATCH", "/api/jobs/" + recurring, oversized("PATCH", "/api/jobs/" + recurring, big()), 413);
        valid("PATCH", "/api/jobs/" + recurring, send("PATCH", "/api/jobs/" + recurring, "{}", "text/plain"), 415);

        post("/api/jobs/" + recurring + "/pause", 200);
        post("/api/jobs/" + recurring + "/resume", 200);
        String run = post("/api/jobs/" + recurring + "/trigger", 201).json().get("id").asText();
        get("/api/runs/" + run, 200);
        for (String action : List.of("pause", "resume", "cancel", "trigger")) {
            post("/api/jobs/" + UNKNOWN_ID + "/" + action, 404);
        }
        post("/api/jobs/" + recurring + "/cancel", 200);
        post("/api/jobs/" + recurring + "/resume", 409);
        post("/api/jobs/" + recurring + "/pause", 409);
        post("/api/jobs/" + recurring + "/trigger", 409);
        patch("/api/jobs/" + recurring, "{\"priority\": 3}", 409);

        String running = create(ONE_OFF.replace("report", "busy"));
        app.store.queue().claim("w1", Set.of("shell"), 10, Duration.ofSeconds(30));
        delete("/api/jobs/" + running, 409);
        delete("/api/jobs/" + running + "?cancel_running=maybe", 400);
        delete("/api/jobs/" + running + "?cancel_running=true", 200);
        post("/api/jobs/" + running + "/cancel", 409);
        get("/api/jobs?status=deleted", 200);
        delete("/api/jobs/" + create(ONE_OFF.replace("report", "short-lived")) + "?purge=true", 204);
        delete("/api/jobs/" + UNKNOWN_ID, 404);
    }

    @Test
    void workflowsAndBatches() {
        String parent = create(ONE_OFF);
        String child = post("/api/jobs", "{\"name\": \"child\", \"executor\": \"shell\", \"payload\": "
                + "{\"command\": \"true\"}, \"depends_on\": [\"" + parent + "\"], \"on_parent_failure\": \"wait\"}", 201)
                .json().get("id").asText();
        get("/api/jobs/" + parent, 200);
        get("/api/jobs/" + child, 200);
        get("/api/runs?status=waiting", 200);
        post("/api/jobs", "{\"name\": \"c\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, "
                + "\"depends_on\": [\"" + UNKNOWN_ID + "\"]}", 422);

        String batch = "{\"name\": \"import\", \"idempotency_key\": \"import-1\", \"jobs\": ["
                + "{\"ref\": \"a\", \"name\": \"a\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}},"
                + "{\"name\": \"b\", \"executor\": \"shell\", \"payload\": {\"command\": \"true\"}, \"depends_on\": [\"a\"]}],"
                + "\"on_complete\": {\"name\": \"done\", \"executor\": \"http\", \"payload\": {\"url\": \"https://example.com/done\"}}}";
        String id = post("/api/batches", batch, 201).json().get("id").asText();
        post("/api/batches", batch, 200);
        post("/api/batches", batch.replace("\"import\"", "\"other\""), 409);
        post("/api/batches", "{not json", 400);
        post("/api/batches", "{\"jobs\": []}", 422);
        valid("POST", "/api/batches", api.post("/api/batches", batch, "text/plain"), 415);
        valid("POST", "/api/batches", oversized("POST", "/api/batches",
                "{\"name\": \"" + "x".repeat((int) BodyLimitFilter.MAX_BATCH_BODY_BYTES + 10) + "\"}"), 413);
        get("/api/batches/" + id, 200);
        get("/api/batches/" + UNKNOWN_ID, 404);
    }

    @Test
    void runs() {
        String job = create(ONE_OFF);
        Run first = app.store.queue().claim("w1", Set.of("shell"), 10, Duration.ofSeconds(30)).get(0);
        get("/api/runs?status=running", 200);
        app.clock.advance(Duration.ofSeconds(2));
        app.store.queue().acknowledge(List.of(new Acknowledgement(fence(first), AttemptOutcome.FAILED,
                RunStatus.PENDING, Duration.ZERO, "out", "exit 1")));
        Run second = app.store.queue().claim("w2", Set.of("shell"), 10, Duration.ofSeconds(30)).get(0);
        get("/api/runs/" + second.id(), 200);
        app.store.queue().acknowledge(List.of(new Acknowledgement(fence(second), AttemptOutcome.FAILED,
                RunStatus.DEAD, Duration.ZERO, "x".repeat(5000), "exit 2")));

        assertThat(get("/api/runs/" + first.id(), 200).json().get("attempts")).hasSize(2);
        assertThat(get("/api/runs?job_id=" + job + "&status=dead&limit=10", 200).json().get("items")).hasSize(1);
        get("/api/runs", 200);
        get("/api/runs?limit=many", 400);
        get("/api/runs?queue=default&label=team:billing&scheduled_after=2020-01-01T00:00:00Z"
                + "&scheduled_before=2100-01-01T00:00:00Z&finished_after=2020-01-01T00:00:00Z", 200);
        get("/api/runs?finished_after=yesterday", 422);
        get("/api/runs/" + UNKNOWN_ID, 404);
        get("/api/runs/not-an-id", 404);

        post("/api/runs/" + first.id() + "/cancel", 409); // dead: only pending and running runs can be cancelled
        post("/api/runs/" + first.id() + "/requeue", 200);
        post("/api/runs/" + first.id() + "/requeue", 409); // pending: only dead and cancelled runs can
        post("/api/runs/" + UNKNOWN_ID + "/requeue", 404);
        post("/api/runs/" + first.id() + "/cancel", 200);
        post("/api/runs/" + UNKNOWN_ID + "/cancel", 404);
    }

    @Test
    void runsAndJobsInEveryStateAndOfEveryKindMatchTheDocument() {
        String done = create(ONE_OFF.replace("report", "done"));
        Run succeeded = app.store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
        app.store.queue().acknowledge(List.of(new Acknowledgement(fence(succeeded), AttemptOutcome.SUCCEEDED,
                RunStatus.SUCCEEDED, Duration.ZERO, "ok", null)));
        String failed = create(ONE_OFF.replace("report", "failed"));
        Run dead = app.store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30)).get(0);
        app.store.queue().acknowledge(List.of(new Acknowledgement(fence(dead), AttemptOutcome.FAILED,
                RunStatus.DEAD, Duration.ZERO, "out", "exit 1")));
        String busy = create(ONE_OFF.replace("report", "busy"));
        app.store.queue().claim("w1", Set.of("shell"), 1, Duration.ofSeconds(30));
        String dropped = create(ONE_OFF.replace("report", "dropped"));
        String droppedRun = get("/api/runs?job_id=" + dropped, 200).json().at("/items/0/id").asText();
        post("/api/runs/" + droppedRun + "/cancel", 200);
        create(RECURRING); // http, recurring
        create(ONE_OFF.replace("report", "later").replace("}}", "}, \"run_at\": \"2026-03-02T00:00:00Z\"}")); // pending
        create("{\"name\": \"child\", \"executor\": \"http\", \"payload\": {\"url\": \"https://example.com/c\"}, "
                + "\"depends_on\": [\"" + busy + "\"], \"on_parent_failure\": \"cancel\"}");
        String paused = create(RECURRING.replace("nightly", "paused"));
        post("/api/jobs/" + paused + "/pause", 200);
        String cancelled = create(RECURRING.replace("nightly", "cancelled"));
        post("/api/jobs/" + cancelled + "/cancel", 200);
        delete("/api/jobs/" + create(ONE_OFF.replace("report", "deleted")), 200);

        Set<String> statuses = new TreeSet<>();
        for (JsonNode run : get("/api/runs?limit=500", 200).json().get("items")) {
            statuses.add(run.get("status").asText());
            get("/api/runs/" + run.get("id").asText(), 200);
        }
        assertThat(statuses).containsExactlyInAnyOrder("waiting", "pending", "running", "succeeded", "dead",
                "cancelled");
        for (String status : statuses) {
            get("/api/runs?status=" + status, 200);
        }
        Set<String> jobStatuses = new TreeSet<>();
        for (JsonNode job : get("/api/jobs?limit=500", 200).json().get("items")) {
            jobStatuses.add(job.get("status").asText());
            get("/api/jobs/" + job.get("id").asText(), 200);
        }
        for (String status : List.of("active", "paused", "cancelled", "deleted", "completed")) {
            get("/api/jobs?status=" + status, 200);
        }
        assertThat(jobStatuses).contains("active", "paused", "cancelled");
        assertThat(List.of(done, failed)).allSatisfy(id -> get("/api/jobs/" + id, 200));
    }

    /** The property names of a component schema. */
    static List<String> properties(String schema) {
        List<String> names = new ArrayList<>();
        CONTRACT.document.at("/components/schemas/" + schema + "/properties").fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void everyRequestSchemaHasExactlyTheFieldsTheServerAccepts() {
        List<String> workflow = new ArrayList<>(JobSubmission.FIELDS);
        workflow.addAll(JobSubmission.WORKFLOW_FIELDS);
        List<String> batchJob = new ArrayList<>(workflow);
        batchJob.add("ref");
        List<String> patch = new ArrayList<>(io.forgeflow.domain.job.JobPatch.MUTABLE);
        patch.addAll(io.forgeflow.domain.job.JobPatch.FIXED);

        assertThat(properties("JobBody")).as("on_complete").containsExactlyInAnyOrderElementsOf(JobSubmission.FIELDS);
        assertThat(properties("JobSubmission")).as("POST /api/jobs").containsExactlyInAnyOrderElementsOf(workflow);
        assertThat(properties("BatchJob")).as("jobs[] of a batch").containsExactlyInAnyOrderElementsOf(batchJob);
        assertThat(properties("BatchSubmission")).containsExactlyInAnyOrderElementsOf(BatchResource.FIELDS);
        assertThat(properties("JobPatch")).containsExactlyInAnyOrderElementsOf(patch);
        assertThat(properties("QueueSettings")).containsExactlyInAnyOrderElementsOf(QueueResource.FIELDS);
        assertThat(properties("TenantSettings")).containsExactlyInAnyOrderElementsOf(TenantResource.FIELDS);
        for (String field : JobSubmission.FIELDS) { // the copies of a job's fields say the same
            JsonNode base = CONTRACT.document.at("/components/schemas/JobBody/properties/" + field);
            assertThat(CONTRACT.document.at("/components/schemas/JobSubmission/properties/" + field)).as(field)
                    .isEqualTo(base);
            assertThat(CONTRACT.document.at("/components/schemas/BatchJob/properties/" + field)).as(field)
                    .isEqualTo(base);
        }
        for (String schema : List.of("JobBody", "JobSubmission", "BatchJob", "BatchSubmission", "JobPatch",
                "QueueSettings", "TenantSettings")) {
            assertThat(CONTRACT.document.at("/components/schemas/" + schema + "/additionalProperties").asBoolean(true))
                    .as(schema + ": an unknown field is a 422").isFalse();
        }
        assertThat(CONTRACT.document.at("/components/schemas/BatchSubmission/properties/on_complete/$ref").asText())
                .isEqualTo("#/components/schemas/JobBody");
    }

    /** Parameters whose values only the server makes (a page's next_cursor, an event's id): no example to send. */
    static final Set<String> SERVER_MADE = Set.of("cursor", "Last-Event-ID", "last_event_id");

    @Test
    void everyRequestBodyAndParameterHasAnExampleTheServerAccepts() throws Exception {
        String job = create(RECURRING);
        int bodies = 0;
        for (OpenApiContract.Operation op : CONTRACT.operations()) {
            String at = "#/paths/" + OpenApiContract.escape(op.path()) + "/" + op.method().toLowerCase(Locale.ROOT);
            StringBuilder query = new StringBuilder();
            JsonNode parameters = op.node().path("parameters");
            for (int i = 0; i < parameters.size(); i++) {
                JsonNode p = parameters.get(i);
                String pointer = p.has("$ref") ? p.get("$ref").asText() : at + "/parameters/" + i;
                JsonNode param = CONTRACT.resolve(pointer);
                String name = param.get("name").asText();
                if (SERVER_MADE.contains(name)) {
                    continue;
                }
                JsonNode example = param.get("example");
                assertThat(example).as("example of parameter " + name + " of " + op.key()).isNotNull();
                assertThat(CONTRACT.validate(pointer + "/schema", example)).as(name + " of " + op.key()).isEmpty();
                if (param.get("in").asText().equals("query")) {
                    for (JsonNode value : example.isArray() ? example : OpenApiContract.JSON.createArrayNode().add(example)) {
                        query.append(query.length() == 0 ? "?" : "&").append(name).append('=')
                                .append(java.net.URLEncoder.encode(value.asText(), StandardCharsets.UTF_8));
                    }
                }
            }
            String path = op.path().replace("{id}", job).replace("{name}", "reports").replace("{backfill_id}", UNKNOWN_ID) + query;
            JsonNode content = op.node().path("requestBody").path("content").path("application/json");
            if (!content.isMissingNode()) {
                JsonNode examples = content.path("examples");
                assertThat(examples.size()).as("examples of the body of " + op.key()).isPositive();
                for (Iterator<Map.Entry<String, JsonNode>> it = examples.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> example = it.next();
                    JsonNode value = example.getValue().get("value");
                    assertThat(CONTRACT.validate(at + "/requestBody/content/application~1json/schema", value))
                            .as("example " + example.getKey() + " of " + op.key()).isEmpty();
                    Api.Reply reply = send(op.method(), path, value.toString(), "application/json");
                    assertThat(reply.status()).as(op.key() + " with example " + example.getKey() + ": " + reply.body())
                            .isBetween(200, 299);
                    bodies++;
                }
            } else if (op.method().equals("GET") && !op.servlet() && !op.path().equals("/api/events")
                    && parameters.size() > 0) {
                Api.Reply reply = api.get(path);
                assertThat(reply.status()).as("GET " + path + ": " + reply.body()).isIn(200, 404);
            }
        }
        assertThat(bodies).as("request bodies sent").isGreaterThanOrEqualTo(5);
    }

    @Test
    void queues() {
        create(RECURRING);
        put("/api/queues/reports", "{\"max_running\": 2, \"rate_limit\": {\"count\": 100, \"per_seconds\": 60}}", 200);
        put("/api/queues/reports", "{\"rate_limit\": null}", 200);
        put("/api/queues/reports", "[1]", 400);
        put("/api/queues/reports", "{\"maxRunning\": 2}", 422);
        put("/api/queues/-bad", "{}", 422);
        valid("PUT", "/api/queues/reports", oversized("PUT", "/api/queues/reports", big()), 413);
        valid("PUT", "/api/queues/reports", send("PUT", "/api/queues/reports", "{}", "text/plain"), 415);
        get("/api/queues", 200);
        get("/api/queues/reports", 200);
        get("/api/queues/unused", 200);
        get("/api/queues/-bad", 422);
        post("/api/queues/reports/pause", 200);
        post("/api/queues/reports/resume", 200);
        post("/api/queues/-bad/pause", 422);
        post("/api/queues/-bad/resume", 422);
    }

    @Test
    void tenants() {
        create(RECURRING);
        put("/api/tenants/acme", "{\"weight\": 3, \"max_running\": 20, \"rate_limit\": {\"count\": 100, "
                + "\"per_seconds\": 60}}", 200);
        put("/api/tenants/acme", "{\"weight\": null, \"rate_limit\": null}", 200);
        put("/api/tenants/acme", "[1]", 400);
        put("/api/tenants/acme", "{\"maxRunning\": 2}", 422);
        put("/api/tenants/acme", "{\"weight\": 1001}", 422);
        put("/api/tenants/Acme", "{}", 422);
        valid("PUT", "/api/tenants/acme", oversized("PUT", "/api/tenants/acme", big()), 413);
        valid("PUT", "/api/tenants/acme", send("PUT", "/api/tenants/acme", "{}", "text/plain"), 415);
        assertThat(get("/api/tenants", 200).json().get("items")).extracting(t -> t.get("name").asText())
                .containsExactly("acme", "default");
        get("/api/tenants/acme", 200);
        get("/api/tenants/unused", 200);
        get("/api/tenants/a%20b", 422);
    }

    @Test
    void operations() {
        get("/api/schedules/preview?cron_expr=30+2+*+*+*&timezone=America/New_York&after=2026-03-07T00:00:00Z&count=3",
                200);
        get("/api/schedules/preview?cron_expr=0+6+L+*+*", 200);
        get("/api/schedules/preview?cron_expr=not+cron", 422);
        get("/api/schedules/preview?cron_expr=*+*+*+*+*&count=1000", 400);
        get("/api/schedules/preview?job_id=01900000-0000-7000-8000-000000000000", 404);
        String steered = create("{\"name\": \"steered\", \"executor\": \"shell\", \"payload\": {\"command\": "
                + "\"true\"}, \"cron_expr\": \"@hourly\", \"max_runs\": 2, \"jitter_seconds\": 30}");
        get("/api/schedules/preview?job_id=" + steered, 200);
        String range = "{\"from\": \"2026-03-01T00:00:00Z\", \"to\": \"2026-03-01T05:00:00Z\"}";
        String backfill = post("/api/jobs/" + steered + "/backfill", range, 201).json().get("id").asText();
        assertThat(post("/api/jobs/" + steered + "/backfill", range, 201).json().get("created").asInt())
                .as("twice: nothing more").isZero();
        get("/api/jobs/" + steered + "/backfill/" + backfill, 200);
        get("/api/jobs/" + steered + "/backfill/01900000-0000-7000-8000-000000000000", 404);
        post("/api/jobs/" + steered + "/backfill", "[1]", 400);
        post("/api/jobs/" + steered + "/backfill", "{\"from\": \"2026-03-02T00:00:00Z\", \"to\": "
                + "\"2026-03-01T00:00:00Z\"}", 422);
        post("/api/jobs/01900000-0000-7000-8000-000000000000/backfill", range, 404);
        post("/api/jobs/" + create(ONE_OFF.replace("report", "once-backfill")) + "/backfill", range, 409);
        valid("POST", "/api/jobs/" + steered + "/backfill", api.post("/api/jobs/" + steered + "/backfill", range,
                "text/plain"), 415);
        post("/api/jobs/" + steered + "/pause", "{\"note\": 5}", 422);

        create(ONE_OFF);
        app.store.nodes().heartbeat(new NodeInfo("node-1", Set.of("worker", "api"), "1.2.3",
                app.clock.instant().minusSeconds(60), true));
        app.store.queue().claim("node-1", Set.of("shell"), 1, Duration.ofSeconds(30));
        get("/api/stats", 200);
        assertThat(get("/api/nodes", 200).json().get("items")).hasSize(1);

        get("/healthz", 200);
        app.readyWarnings.set(List.of("no tokens on a public address"));
        get("/readyz", 200);
        app.readyWarnings.set(List.of());
        get("/readyz", 200);
        app.notReadyBecause.set("database unreachable");
        get("/readyz", 503);
        app.notReadyBecause.set(null);

        valid("GET", "/metrics", api.get("/metrics"), 200);
        valid("GET", "/metrics", new Api(AUTH.getLocalPort()).get("/metrics"), 401);
        valid("GET", "/metrics", new Api(AUTH.getLocalPort(), "metrics-token-0123456789").get("/metrics"), 200);
    }

    @Test
    void theEventStreamAndItsData() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + "/api/events"))
                .header("Accept", "text/event-stream").header("Last-Event-ID", "gone-1").build();
        HttpResponse<java.io.InputStream> stream = client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                .get(10, TimeUnit.SECONDS);
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            assertThat(CONTRACT.problems("GET", "/api/events", stream.statusCode(),
                    stream.headers().firstValue("Content-Type").orElse(null), null)).isEmpty();
            assertThat(stream.statusCode()).isEqualTo(200);

            JsonNode reset = data(lines, "reset");
            assertThat(CONTRACT.validate("#/components/schemas/ResetEvent", reset)).isEmpty();
            valid("GET", "/api/events", api.get("/api/events"), 503); // rest-openapi-test.yml: one stream at most
            app.runEvents.publish(List.of(new RunChange("run-1", "job-1", RunStatus.RUNNING, 1, "w1",
                    Instant.parse("2026-03-01T12:00:00.123Z")), new RunChange("run-1", "job-1", RunStatus.PENDING, 1,
                    null, Instant.parse("2026-03-01T12:00:01Z"))));
            JsonNode run = data(lines, "run");
            assertThat(run.get("worker_id").asText()).isEqualTo("w1");
            assertThat(CONTRACT.validate("#/components/schemas/RunEvent", run)).isEmpty();
            JsonNode byApi = data(lines, "run");
            assertThat(byApi.get("worker_id").isNull()).isTrue();
            assertThat(CONTRACT.validate("#/components/schemas/RunEvent", byApi)).isEmpty();
            assertThat(CONTRACT.validate("#/components/schemas/RunEvent",
                    OpenApiContract.JSON.readTree("{\"run_id\":\"r\",\"job_id\":\"j\",\"status\":\"running\","
                            + "\"attempt\":\"1\",\"worker_id\":null,\"at\":\"2026-03-01T12:00:00Z\"}")))
                    .as("an attempt that is not a number").isNotEmpty();
        }
    }

    /** The data of the next event of {@code type} on the stream. */
    private static JsonNode data(BufferedReader lines, String type) throws Exception {
        String event = null;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            if (line.startsWith("event: ")) {
                event = line.substring(7);
            } else if (line.startsWith("data: ") && type.equals(event)) {
                return OpenApiContract.JSON.readTree(line.substring(6));
            } else if (line.isEmpty()) {
                event = null;
            }
        }
        throw new AssertionError("the stream ended before an event " + type);
    }

    /** Every operation answers the documented 401 without a token and 403 with a token that lacks its scope. */
    @Test
    void authenticationErrorsOfEveryRoute() {
        Api stranger = new Api(AUTH.getLocalPort());
        for (OpenApiContract.Operation op : CONTRACT.operations()) {
            if (op.servlet() || op.scope() == null) {
                continue;
            }
            String path = concrete(op.path());
            assertThat(op.statuses()).as(op.key() + " needs a token: it documents 401 and 403").contains("401", "403");
            valid(op.method(), path, call(stranger, op.method(), path), 401);
            Api lacking = new Api(AUTH.getLocalPort(), LACKING.get(op.scope()));
            valid(op.method(), path, call(lacking, op.method(), path), 403);
        }
    }

    /** While the database is away every route of the API answers its documented 503 {@code unavailable}, never 500. */
    @Test
    void everyRouteAnswers503UnavailableWithRetryAfterWhileTheDatabaseIsAway() {
        app.databaseAway.set(true);
        int routes = 0;
        for (OpenApiContract.Operation op : CONTRACT.operations()) {
            if (op.servlet() || !op.path().startsWith("/api/") || op.path().equals("/api/openapi.json")) {
                continue;
            }
            String path = concrete(op.path());
            assertThat(op.statuses()).as(op.key() + " documents the outage's 503").contains("503");
            Api.Reply reply = valid(op.method(), path, call(api, op.method(), path), 503);
            assertThat(reply.json().get("code").asText()).as(op.key()).isEqualTo("unavailable");
            assertThat(reply.header("Retry-After")).as(op.key() + " says when to retry").isEqualTo("2");
            routes++;
        }
        assertThat(routes).isGreaterThan(20);
    }

    @AfterAll
    static void everyDocumentedResponseWasExercised() {
        Set<String> documented = new TreeSet<>();
        for (OpenApiContract.Operation op : CONTRACT.operations()) {
            op.statuses().forEach(s -> documented.add(op.key() + " " + s));
        }
        documented.removeAll(CONTRACT.seen);
        assertThat(documented).as("documented responses no test validated (run the class whole)").isEmpty();
    }

    private static Api.Reply call(Api client, String method, String path) {
        switch (method) {
            case "GET":
                return client.get(path);
            case "POST":
                return client.post(path, "{}");
            case "PUT":
                return client.put(path, "{}");
            case "PATCH":
                return client.patch(path, "{}");
            case "DELETE":
                return client.delete(path);
            default:
                return client.method(method, path);
        }
    }

    private Api.Reply send(String method, String path, String body, String contentType) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
                    .header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofString(body))
                    .build(), HttpResponse.BodyHandlers.ofString());
            return new Api.Reply(r.statusCode(), r.headers(), r.body());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** A concrete path of a template: an id that names nothing, the queue {@code reports}. */
    static String concrete(String template) {
        return template.replace("{id}", UNKNOWN_ID).replace("{name}", "reports").replace("{backfill_id}", UNKNOWN_ID);
    }

    static RunFence fence(Run run) {
        return new RunFence(run.id(), run.workerId(), run.attempt());
    }

    /** "METHOD /path" of every resource method of every @Path class of this adapter, found by reflection. */
    static Set<String> jaxRsRoutes() throws Exception {
        Set<String> routes = new TreeSet<>();
        for (Class<?> type : adapterClasses()) {
            Path root = type.getAnnotation(Path.class);
            if (root == null) {
                continue;
            }
            for (Method m : type.getDeclaredMethods()) {
                String verb = null;
                for (Annotation a : m.getAnnotations()) {
                    HttpMethod http = a.annotationType().getAnnotation(HttpMethod.class);
                    if (http != null) {
                        verb = http.value();
                    }
                }
                if (verb == null) {
                    continue;
                }
                Path sub = m.getAnnotation(Path.class);
                String path = "/" + root.value() + (sub == null ? "" : "/" + sub.value());
                routes.add(verb.toUpperCase(Locale.ROOT) + " " + path.replaceAll("/+", "/").replaceAll("(.)/$", "$1"));
            }
        }
        return routes;
    }

    /** The classes of the adapter's package, from its directory of compiled classes. */
    private static List<Class<?>> adapterClasses() throws Exception {
        String pkg = OpenApiResource.class.getPackageName();
        URL url = OpenApiResource.class.getResource(OpenApiResource.class.getSimpleName() + ".class");
        File dir = new File(url.toURI()).getParentFile();
        List<Class<?>> classes = new ArrayList<>();
        for (String name : dir.list()) {
            if (name.endsWith(".class") && !name.contains("$")) {
                classes.add(Class.forName(pkg + "." + name.substring(0, name.length() - 6)));
            }
        }
        assertThat(classes).as("classes found in " + dir).contains(JobResource.class, EventResource.class);
        return classes;
    }
}
