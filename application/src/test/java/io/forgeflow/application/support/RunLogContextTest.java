package io.forgeflow.application.support;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import static org.assertj.core.api.Assertions.assertThat;

class RunLogContextTest {

    @AfterEach
    void clear() {
        MDC.clear();
    }

    @Test
    void setsTheRunFieldsForTheBlockAndRestoresWhatWasThereBefore() {
        MDC.put("run_id", "outer");

        try (RunLogContext ignored = RunLogContext.of("r1", "j1", 2, "w1")) {
            assertThat(MDC.get("run_id")).isEqualTo("r1");
            assertThat(MDC.get("job_id")).isEqualTo("j1");
            assertThat(MDC.get("attempt")).isEqualTo("2");
            assertThat(MDC.get("worker_id")).isEqualTo("w1");
        }

        assertThat(MDC.get("run_id")).isEqualTo("outer");
        assertThat(MDC.get("job_id")).isNull();
        assertThat(MDC.get("attempt")).isNull();
    }

    @Test
    void nullValuesAreLeftOut() {
        MDC.put("worker_id", "stale");

        try (RunLogContext ignored = RunLogContext.of("r1", null, null, null)) {
            assertThat(MDC.getCopyOfContextMap()).containsOnlyKeys("run_id");
        }

        assertThat(MDC.get("worker_id")).isEqualTo("stale");
    }
}
