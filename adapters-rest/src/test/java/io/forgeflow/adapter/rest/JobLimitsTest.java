package io.forgeflow.adapter.rest;

import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.Labels;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-job limits hold on every REST entry point: one table of cases (each limit just passed), each sent through
 * POST /api/jobs, an item of POST /api/batches, its on_complete, and PATCH /api/jobs/{id}; each is refused with 422
 * naming the field (with the entry point's prefix). The limits themselves are the domain's constants.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class JobLimitsTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    /** A limit just passed: the JSON of the fields that pass it, and the field the refusal names. */
    record Case(String limit, String fields, String field) {
        @Override
        public String toString() {
            return limit;
        }
    }

    static List<Case> cases() {
        StringBuilder labels = new StringBuilder("{");
        for (int i = 0; i <= Labels.MAX_LABELS; i++) {
            labels.append(i == 0 ? "" : ", ").append("\"k").append(i).append("\": \"v\"");
        }
        labels.append('}');
        String deep = "\"x\"";
        for (int i = 0; i <= JobDraft.MAX_PAYLOAD_DEPTH; i++) {
            deep = "{\"a\": " + deep + "}";
        }
        return List.of(
                new Case("name longer than " + JobDraft.MAX_NAME_LENGTH,
                        "\"name\": \"" + "n".repeat(JobDraft.MAX_NAME_LENGTH + 1) + "\"", "name"),
                new Case("more than " + Labels.MAX_LABELS + " labels", "\"labels\": " + labels, "labels"),
                new Case("payload deeper than " + JobDraft.MAX_PAYLOAD_DEPTH,
                        "\"payload\": {\"command\": \"true\", \"nested\": " + deep + "}", "payload"),
                new Case("payload larger than " + JobDraft.MAX_PAYLOAD_BYTES + " bytes", "\"payload\": {\"command\": \""
                        + "c".repeat(JobDraft.MAX_PAYLOAD_BYTES) + "\"}", "payload"));
    }

    /** An entry point: how a job's fields are sent, and the prefix of the field it names. */
    record EntryPoint(String name, Function<String, Api.Reply> send, String prefix) {
        @Override
        public String toString() {
            return name;
        }
    }

    Api api;
    String existing;

    @BeforeEach
    void reset() {
        ((RestTestApplication) APP.getApplication()).store.clear();
        api = new Api(APP.getLocalPort());
        existing = api.post("/api/jobs", job("\"name\": \"existing\"")).json().get("id").asText();
    }

    /** A job body: defaults, with {@code fields} over them (a later duplicate key would be refused: replace). */
    static String job(String fields) {
        List<String> parts = new ArrayList<>();
        if (!fields.startsWith("\"name\"")) {
            parts.add("\"name\": \"limits\"");
        }
        parts.add("\"executor\": \"shell\"");
        if (!fields.startsWith("\"payload\"")) {
            parts.add("\"payload\": {\"command\": \"true\"}");
        }
        parts.add(fields);
        return "{" + String.join(", ", parts) + "}";
    }

    List<EntryPoint> entryPoints() {
        return List.of(
                new EntryPoint("POST /api/jobs", fields -> api.post("/api/jobs", job(fields)), ""),
                new EntryPoint("an item of POST /api/batches", fields -> api.post("/api/batches",
                        "{\"jobs\": [" + job(fields) + "]}"), "jobs[0]."),
                new EntryPoint("on_complete of POST /api/batches", fields -> api.post("/api/batches",
                        "{\"jobs\": [" + job("\"queue\": \"q\"") + "], \"on_complete\": " + job(fields) + "}"),
                        "on_complete."),
                new EntryPoint("PATCH /api/jobs/{id}", fields -> api.patch("/api/jobs/" + existing,
                        "{" + fields + "}"), ""));
    }

    static Stream<Arguments> everyCase() {
        return cases().stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCase")
    void eachLimitHoldsOnEveryEntryPoint(Case limit) {
        for (EntryPoint entry : entryPoints()) {
            Api.Reply reply = entry.send().apply(limit.fields());
            String shown = reply.body().length() > 300 ? reply.body().substring(0, 300) : reply.body();
            assertThat(reply.status()).as(entry + ", " + limit + ": " + shown).isEqualTo(422);
            assertThat(reply.json().get("field").asText()).as(entry + ", " + limit)
                    .startsWith(entry.prefix() + limit.field());
        }
    }
}
