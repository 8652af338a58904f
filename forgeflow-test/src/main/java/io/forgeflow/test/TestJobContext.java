package io.forgeflow.test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.embedded.JobCancellation;
import io.forgeflow.embedded.JobContext;
import io.forgeflow.embedded.PermanentFailureException;

import java.time.Duration;
import java.util.concurrent.CancellationException;

/** The context of a handler run by {@link TestForgeFlow} in the caller's thread: attempt 1, never cancelled. */
final class TestJobContext implements JobContext {
    private final EnqueuedJob job;
    private final ObjectMapper mapper;
    private final StringBuilder output = new StringBuilder();

    TestJobContext(EnqueuedJob job, ObjectMapper mapper) {
        this.job = job;
        this.mapper = mapper;
    }

    @Override
    public JsonNode payload() {
        return job.args();
    }

    @Override
    public <T> T payloadAs(Class<T> type) {
        try {
            return mapper.treeToValue(job.args(), type);
        } catch (JsonProcessingException e) {
            throw new PermanentFailureException("args of handler '" + job.handler() + "' cannot be read as "
                    + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public String handler() {
        return job.handler();
    }

    @Override
    public String runId() {
        return job.runId();
    }

    @Override
    public String jobId() {
        return job.jobId();
    }

    @Override
    public int attempt() {
        return 1;
    }

    @Override
    public Duration timeout() {
        return Duration.ofSeconds(job.job().timeoutSeconds() == null ? 300 : job.job().timeoutSeconds());
    }

    @Override
    public JobCancellation cancellation() {
        return NEVER;
    }

    @Override
    public void output(String text) {
        synchronized (output) {
            output.append(text);
        }
    }

    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    @Override
    public PermanentFailureException failPermanently(String reason) {
        throw new PermanentFailureException(reason);
    }

    private static final JobCancellation NEVER = new JobCancellation() {
        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public String reason() {
            return null;
        }

        @Override
        public void throwIfCancelled() {
            if (isCancelled()) {
                throw new CancellationException();
            }
        }

        @Override
        public boolean await(Duration max) throws InterruptedException {
            Thread.sleep(max.toMillis()); // the test's own wait: a cancellation that never fires
            return false;
        }

        @Override
        public void onCancel(Runnable callback) {
        }
    };
}
