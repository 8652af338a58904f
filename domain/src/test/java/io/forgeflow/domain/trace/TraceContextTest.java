package io.forgeflow.domain.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class TraceContextTest {
    static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aValidHeaderIsReadWithItsIdsFlagsAndState() {
        TraceContext c = TraceContext.parse(" 00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01 ", "vendor=1");
        assertThat(c.traceparent()).isEqualTo(VALID);
        assertThat(c.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(c.spanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(c.sampled()).isTrue();
        assertThat(c.tracestate()).isEqualTo("vendor=1");
        assertThat(TraceContext.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", null).sampled())
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "garbage", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"})
    void anInvalidHeaderIsIgnored(String header) {
        assertThat(TraceContext.parse(header, "vendor=1")).isNull();
    }

    @Test
    void noHeaderNoContextAndAnOversizedStateIsDropped() {
        assertThat(TraceContext.parse(null, null)).isNull();
        assertThat(TraceContext.parse(VALID, "k=" + "v".repeat(600)).tracestate()).isNull();
    }

    @Test
    void aChildKeepsTheTraceAndFlagsWithANewSpanAndANewTraceIsSampled() {
        TraceContext parent = TraceContext.parse(VALID, "vendor=1");
        TraceContext child = parent.child();
        assertThat(child.traceId()).isEqualTo(parent.traceId());
        assertThat(child.spanId()).isNotEqualTo(parent.spanId()).hasSize(16);
        assertThat(child.traceparent()).endsWith("-01");
        assertThat(child.tracestate()).isEqualTo("vendor=1");
        TraceContext root = TraceContext.newTrace();
        assertThat(TraceContext.isValid(root.traceparent())).isTrue();
        assertThat(root.traceId()).isNotEqualTo(TraceContext.newTrace().traceId());
    }
}
