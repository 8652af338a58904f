package io.forgeflow.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.application.executor.HandlerPayload;
import io.forgeflow.domain.execution.ExecutionContext;

import java.time.Duration;

/** The {@link JobContext} of one attempt: its args, its output (the tail kept) and its stop signal. */
final class AttemptContext implements JobContext {
    private final HandlerPayload payload;
    private final ExecutionContext execution;
    private final ObjectMapper mapper;
    private final AttemptCancellation cancellation = new AttemptCancellation();
    private final StringBuilder output = new StringBuilder();
    private final int maxOutputChars;
    private JsonNode args;

    AttemptContext(HandlerPayload payload, ExecutionContext execution, ObjectMapper mapper) {
        this.payload = payload;
        this.execution = execution;
        this.mapper = mapper;
        this.maxOutputChars = execution.maxOutputBytes();
    }

    @Override
    public synchronized JsonNode payload() {
        if (args == null) {
            args = mapper.valueToTree(payload.args());
        }
        return args.deepCopy();
    }

    @Override
    public <T> T payloadAs(Class<T> type) {
        try {
            return mapper.convertValue(payload(), type);
        } catch (IllegalArgumentException e) {
            throw new PermanentFailureException("payload.args cannot be read as " + type.getSimpleName() + ": "
                    + firstLine(e.getMessage()), e);
        }
    }

    @Override
    public String handler() {
        return payload.handler();
    }

    @Override
    public String runId() {
        return execution.runId();
    }

    @Override
    public String jobId() {
        return execution.jobId();
    }

    @Override
    public int attempt() {
        return execution.attempt();
    }

    @Override
    public Duration timeout() {
        return execution.timeout();
    }

    @Override
    public AttemptCancellation cancellation() {
        return cancellation;
    }

    @Override
    public String traceparent() {
        return execution.traceparent();
    }

    @Override
    public String tracestate() {
        return execution.traceparent() == null ? null : execution.tracestate();
    }

    @Override
    public void output(String text) {
        if (text == null || text.isEmpty()) {
            return;
        }
        synchronized (output) {
            output.append(text);
            if (output.length() > 2 * maxOutputChars) {
                output.delete(0, output.length() - maxOutputChars);
            }
        }
    }

    @Override
    public PermanentFailureException failPermanently(String reason) {
        throw new PermanentFailureException(reason == null ? "failed permanently" : reason);
    }

    /** The output so far: its last {@code maxOutputBytes} characters. */
    String outputText() {
        synchronized (output) {
            int from = Math.max(0, output.length() - maxOutputChars);
            return output.substring(from);
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
