package io.forgeflow.embedded;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunExecutor;

import java.util.Locale;
import java.util.Map;

/**
 * The {@code http} executor as a leading embedded worker knows it when it hands the notices' jobs on (issue 45): the
 * worker runs only its Java handlers, so the notices' http jobs are run by the cluster's nodes with the http executor,
 * which apply their own guard (FORGEFLOW_HTTP_ALLOW_PRIVATE) when they call. Here only the URL's form is checked (the
 * job's notify was checked in full when it was submitted). Never runs a job: this worker does not claim http runs.
 */
final class NoticeHttpTarget implements RunExecutor {
    @Override
    public String name() {
        return "http";
    }

    @Override
    public void validate(Map<String, Object> payload) {
        Object url = payload.get("url");
        String text = url instanceof String s ? s.toLowerCase(Locale.ROOT) : "";
        if (!text.startsWith("http://") && !text.startsWith("https://")) {
            throw new ValidationException("payload.url", "payload.url must be an absolute http or https URL");
        }
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        throw new UnsupportedOperationException("an embedded worker does not run http jobs");
    }
}
