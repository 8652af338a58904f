package io.forgeflow.admin.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.SubmitResult;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A bridge until the REST client has workflows (branch workflow-views): the workflow routes of API.md over the
 * desktop's own OkHttp client, with the same token and the client's wire format. Delete once
 * {@link io.forgeflow.client.ForgeFlowClient} has {@code getBatch}, {@code Job.parents} and {@code JobRequest.dependsOn}.
 */
final class WorkflowCalls {
    private static final MediaType JSON_TYPE = MediaType.get("application/json");
    private final ObjectMapper json = JsonMapper.builder().addModule(new JavaTimeModule())
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();
    private final HttpUrl base;
    private final String authorization;
    private final OkHttpClient http;

    WorkflowCalls(String baseUrl, String token, OkHttpClient http) {
        this.base = HttpUrl.get(baseUrl);
        this.authorization = token == null || token.isBlank() ? null : "Bearer " + token.strip();
        this.http = http.newBuilder().connectTimeout(Duration.ofSeconds(3)).readTimeout(Duration.ofSeconds(15))
                .callTimeout(Duration.ofSeconds(15)).build();
    }

    JobWorkflow workflow(String jobId) {
        Answer answer = send(new Request.Builder().url(url("api/jobs", jobId)).get());
        JsonNode body = answer.tree(json);
        return new JobWorkflow(answer.as(json, body, Job.class), texts(body.get("depends_on")),
                text(body.get("on_parent_failure")), text(body.get("batch_id")), nodes(body.get("parents")),
                nodes(body.get("children")));
    }

    BatchProgress batch(String batchId) {
        Answer answer = send(new Request.Builder().url(url("api/batches", batchId)).get());
        return answer.as(json, answer.tree(json), BatchProgress.class);
    }

    SubmitResult submit(JobRequest request, Parents parents) {
        ObjectNode body = json.valueToTree(request);
        parents.ids().forEach(body.putArray("depends_on")::add);
        if (parents.onParentFailure() != null) {
            body.put("on_parent_failure", parents.onParentFailure());
        }
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write the job as JSON: " + e.getOriginalMessage(), e);
        }
        Answer answer = send(new Request.Builder().url(url("api/jobs")).post(RequestBody.create(bytes, JSON_TYPE)));
        return new SubmitResult(answer.as(json, answer.tree(json), Job.class), answer.code == 201);
    }

    private HttpUrl url(String path, String... ids) {
        HttpUrl.Builder url = base.newBuilder().addPathSegments(path);
        for (String id : ids) {
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("ids must not be empty");
            }
            url.addPathSegment(id);
        }
        return url.build();
    }

    private Answer send(Request.Builder request) {
        request.header("Accept", "application/json");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        Answer answer;
        try (Response response = http.newCall(request.build()).execute()) {
            ResponseBody body = response.body();
            answer = new Answer(response.code(), body == null ? "" : body.string());
        } catch (IOException e) {
            throw new ForgeFlowUnavailableException(base.toString(), e);
        }
        if (answer.code < 200 || answer.code > 299) {
            throw answer.error(json);
        }
        return answer;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null && array.isArray()) {
            array.forEach(n -> out.add(n.asText()));
        }
        return out;
    }

    private static List<WorkflowNode> nodes(JsonNode array) {
        List<WorkflowNode> out = new ArrayList<>();
        if (array != null && array.isArray()) {
            array.forEach(n -> out.add(new WorkflowNode(text(n.get("id")), text(n.get("name")), text(n.get("status")),
                    text(n.get("run_status")))));
        }
        return out;
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }

    private record Answer(int code, String body) {
        JsonNode tree(ObjectMapper json) {
            try {
                JsonNode tree = json.readTree(body);
                if (tree == null || !tree.isObject()) {
                    throw new ForgeFlowApiException(code, "the server's answer is not a JSON object", null);
                }
                return tree;
            } catch (JsonProcessingException e) {
                throw new ForgeFlowApiException(code, "the server's answer is not JSON: " + e.getOriginalMessage(),
                        null);
            }
        }

        <T> T as(ObjectMapper json, JsonNode tree, Class<T> type) {
            try {
                return json.treeToValue(tree, type);
            } catch (JsonProcessingException e) {
                throw new ForgeFlowApiException(code, "the server's answer is not the JSON API.md describes: "
                        + e.getOriginalMessage(), null);
            }
        }

        ForgeFlowApiException error(ObjectMapper json) {
            String error = null;
            String field = null;
            String errorCode = null;
            try {
                JsonNode tree = body.isBlank() ? null : json.readTree(body);
                if (tree != null && tree.isObject()) {
                    error = text(tree.get("error"));
                    field = text(tree.get("field"));
                    errorCode = text(tree.get("code"));
                }
            } catch (JsonProcessingException notJson) {
                // described below
            }
            if (error == null || error.isBlank()) {
                String snippet = body.strip();
                error = "HTTP " + code + (snippet.isEmpty() ? "" : ": "
                        + (snippet.length() > 200 ? snippet.substring(0, 200) + "…" : snippet));
            }
            return new ForgeFlowApiException(code, error, field, errorCode);
        }
    }
}
