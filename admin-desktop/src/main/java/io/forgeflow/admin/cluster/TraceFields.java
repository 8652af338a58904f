package io.forgeflow.admin.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import okhttp3.Interceptor;
import okhttp3.Response;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers {@code trace_id} and {@code trace_url} of the runs in the answers the REST client receives, by run id.
 * A bridge: {@link io.forgeflow.client.Run} does not carry these fields yet, so this interceptor on the client's own
 * HTTP calls reads them from the same answers (no request of its own). Drop it once the client's Run has them.
 */
final class TraceFields implements Interceptor {
    /** Runs remembered at most (the oldest go first); ten thousand loaded runs fit several times. */
    static final int CAPACITY = 50_000;
    /** Answers larger than this are not read for traces (they are still the client's to read). */
    static final long MAX_BODY = 64L * 1024 * 1024;

    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, RunTrace> byRun = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RunTrace> eldest) {
            return size() > CAPACITY;
        }
    };

    @Override
    public Response intercept(Chain chain) throws IOException {
        Response response = chain.proceed(chain.request());
        String path = chain.request().url().encodedPath();
        if (response.isSuccessful() && carriesRuns(path)) {
            try {
                remember(json.readTree(response.peekBody(MAX_BODY).string()));
            } catch (IOException | RuntimeException unreadable) {
                // not JSON or too large: the client reports what is wrong with the answer; no trace is learned
            }
        }
        return response;
    }

    /** {@code /api/runs...} and a job's trigger, which answers a run. */
    static boolean carriesRuns(String path) {
        return path.contains("/api/runs") || (path.contains("/api/jobs/") && path.endsWith("/trigger"));
    }

    private void remember(JsonNode body) {
        if (body == null || !body.isObject()) {
            return;
        }
        JsonNode items = body.get("items");
        if (items != null && items.isArray()) {
            items.forEach(this::rememberRun);
        } else {
            rememberRun(body);
        }
    }

    private void rememberRun(JsonNode run) {
        JsonNode id = run.get("id");
        if (id == null || !id.isTextual()) {
            return;
        }
        RunTrace trace = new RunTrace(text(run.get("trace_id")), text(run.get("trace_url")));
        synchronized (byRun) {
            byRun.put(id.asText(), trace);
        }
    }

    /** What the last answer carrying the run said; {@link RunTrace#NONE} when no answer did. */
    RunTrace of(String runId) {
        synchronized (byRun) {
            return byRun.getOrDefault(runId, RunTrace.NONE);
        }
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }
}
