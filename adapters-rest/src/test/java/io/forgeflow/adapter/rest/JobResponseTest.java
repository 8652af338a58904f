package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobSpec;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.ListedJob;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JobResponseTest {
    static final Instant T = Instant.parse("2026-03-01T00:00:00Z");
    static final Job JOB = new Job("0190e0b4-7c3a-7d2e-8f00-000000000001",
            new JobSpec("big", "shell", Map.of("command", "true"), null, null, "UTC", 5, 3, 60, CatchUp.SKIP, null),
            JobStatus.ACTIVE, T, T, T);
    final ObjectMapper json = new ObjectMapper();

    @Test
    void aListItemWhosePayloadWasLeftOutShowsItNullAndSaysSo() {
        JsonNode cut = json.valueToTree(JobResponse.of(new ListedJob(JOB, true)));
        assertThat(cut.get("payload").isNull()).isTrue();
        assertThat(cut.get("payload_truncated").asBoolean()).isTrue();

        JsonNode listed = json.valueToTree(JobResponse.of(new ListedJob(JOB, false)));
        assertThat(listed.get("payload").get("command").asText()).isEqualTo("true");
        assertThat(listed.get("payload_truncated").asBoolean()).isFalse();

        JsonNode whole = json.valueToTree(JobResponse.of(JOB).withWaitingFor("handler x"));
        assertThat(whole.get("payload_truncated").asBoolean()).isFalse();
        assertThat(whole.get("payload").get("command").asText()).isEqualTo("true");
        assertThat(whole.get("waiting_for").asText()).isEqualTo("handler x");
    }
}
