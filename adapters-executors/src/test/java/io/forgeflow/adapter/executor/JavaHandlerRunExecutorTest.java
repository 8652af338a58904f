package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.run.AttemptOutcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Executor java on a node: it checks handler payloads for the API and never runs a handler itself. */
class JavaHandlerRunExecutorTest {
    final JavaHandlerRunExecutor java = new JavaHandlerRunExecutor();

    @Test
    void itChecksHandlerPayloadsAsEmbeddedWorkersReadThem() {
        assertThat(java.name()).isEqualTo("java");
        java.validate(Map.of("handler", "send-receipt", "args", Map.of("order_id", 1)));
        assertThatThrownBy(() -> java.validate(Map.of("args", Map.of())))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("payload.handler"));
    }

    @Test
    void aNodeThatIsAskedToRunAHandlerSaysItHasNone() {
        ExecutionResult result = java.execute(new ExecutionContext("r1", "j1", 1, Map.of("handler", "send-receipt"),
                Duration.ofSeconds(5), new Cancellation(), 1024));

        assertThat(result.outcome()).isEqualTo(AttemptOutcome.FAILED);
        assertThat(result.permanent()).isFalse();
        assertThat(result.error()).isEqualTo("handler 'send-receipt' runs on an embedded worker that registered it; "
                + "this node has no handlers");
    }
}
