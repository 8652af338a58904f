package io.forgeflow.server;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.RunExecutor;

import java.util.Map;

/** A plug-in executor, found through ServiceLoader like one in a user's jar: it reverses payload.text. */
public final class ReverseExecutor implements RunExecutor {
    @Override
    public String name() {
        return "reverse";
    }

    @Override
    public void validate(Map<String, Object> payload) {
        if (!(payload.get("text") instanceof String)) {
            throw new ValidationException("payload.text", "payload.text is required: the text to reverse");
        }
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        String text = (String) context.payload().get("text");
        return ExecutionResult.succeeded(new StringBuilder(text).reverse().toString());
    }
}
