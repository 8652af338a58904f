package io.forgeflow.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.embedded.JobContext;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Declarations that cannot work fail the application's start, naming the method and how to fix it. */
class AnnotationsTest {

    public static class Receipts {
        @ForgeFlowHandler("send-receipt")
        public void send(JobContext ctx) {
        }
    }

    public static class MoreReceipts {
        @ForgeFlowHandler("send-receipt")
        public void sendAgain() {
        }
    }

    public static class TwoArgs {
        @ForgeFlowHandler("two")
        public void two(String a, String b) {
        }
    }

    public static class Scheduled {
        @Recurring(name = "report", cron = "0 2 * * *")
        public void report() {
        }
    }

    @Test
    void aHandlerNameDeclaredTwiceNamesBothMethods() {
        ForgeFlowHandlers handlers = new ForgeFlowHandlers();
        handlers.postProcessAfterInitialization(new Receipts(), "receipts");
        assertThatThrownBy(() -> handlers.postProcessAfterInitialization(new MoreReceipts(), "more"))
                .hasMessageContaining("handler 'send-receipt' is declared twice")
                .hasMessageContaining("Receipts.send").hasMessageContaining("MoreReceipts.sendAgain");
    }

    @Test
    void aHandlerTakesOneArgsParameterAtMost() {
        assertThatThrownBy(() -> new ForgeFlowHandlers().postProcessAfterInitialization(new TwoArgs(), "two"))
                .hasMessageContaining("takes at most one args parameter");
    }

    @Test
    void aRecurringMethodIsAHandlerNamedAfterItsJob() {
        ForgeFlowHandlers handlers = new ForgeFlowHandlers();
        handlers.postProcessAfterInitialization(new Scheduled(), "scheduled");
        assertThat(handlers.handlers()).containsOnlyKeys("report");
        assertThat(handlers.recurring()).singleElement().satisfies(r -> {
            assertThat(r.cron()).isEqualTo("0 2 * * *");
            assertThat(r.zone()).isEqualTo("UTC");
            assertThat(r.overlap()).isEqualTo("allow");
            assertThat(r.catchUp()).isEqualTo("skip");
        });
    }

    @Test
    void badSchedulesFailBeforeTheDatabaseIsTouched() {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setURL("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1");
        RecurringReconciler reconciler = new RecurringReconciler(nowhere, "forgeflow", "app", new ObjectMapper());
        assertThatThrownBy(() -> reconciler.reconcile(List.of(definition("0 2 30 2 *", "UTC", "{}"))))
                .hasMessageContaining("@Recurring(name = \"r\") on Here.m").hasMessageContaining("never fires");
        assertThatThrownBy(() -> reconciler.reconcile(List.of(definition("0 2 * * *", "Mars/Base", "{}"))))
                .hasMessageContaining("zone 'Mars/Base' is not a time zone");
        assertThatThrownBy(() -> reconciler.reconcile(List.of(definition("0 2 * * *", "UTC", "[1]"))))
                .hasMessageContaining("args must be a JSON object");
        assertThatThrownBy(() -> new RecurringReconciler(nowhere, "forgeflow", "has space", new ObjectMapper()))
                .hasMessageContaining("forgeflow.recurring-owner must be");
    }

    private static RecurringDefinition definition(String cron, String zone, String args) {
        return new RecurringDefinition("r", "r", cron, zone, "allow", "skip", args, "default", 5, 3, 300, "Here.m");
    }
}
