package io.forgeflow.adapter.rest;

import io.forgeflow.application.event.RunEventFeed;
import io.forgeflow.domain.port.RunEvents;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventStreamsLimitTest {
    final RunEventFeed feed = new RunEventFeed(RunEvents.NONE, 10);
    final EventStreams streams = new EventStreams(feed, Duration.ofSeconds(15), 2);

    @AfterEach
    void close() {
        streams.close();
        feed.close();
    }

    @Test
    void aNodeServesAtMostItsLimitOfStreamsAndRefusesOneMoreWith503() {
        streams.reserve();
        streams.reserve();

        assertThatThrownBy(streams::reserve)
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(503))
                .hasMessageContaining("limit of 2 event streams").hasMessageContaining("FORGEFLOW_EVENT_STREAMS");
    }

    @Test
    void aPlaceGivenBackCanBeTakenAgain() {
        streams.reserve();
        streams.reserve();
        streams.release();

        assertThatCode(streams::reserve).doesNotThrowAnyException();
    }

    @Test
    void aClosingNodeOpensNoStream() {
        streams.close();

        assertThatThrownBy(streams::reserve)
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(503))
                .hasMessageContaining("shutting down");
    }

    @Test
    void theLimitMustBePositive() {
        assertThatThrownBy(() -> new EventStreams(feed, Duration.ofSeconds(15), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxStreams");
    }
}
