package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;

import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SubmitJobNeverFiresTest {
    final Scenario s = new Scenario();

    @Test
    void aScheduleThatParsesButNeverFiresIsRefusedSayingWhereToLook() {
        assertThatThrownBy(() -> s.submitJob().submit(aRecurringDraft("0 0 30 2 *").build()))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("cron_expr"))
                .hasMessageContaining("check the day and month fields, e.g. February has no 30th");
        assertThat(s.store.allJobs()).isEmpty();
    }
}
