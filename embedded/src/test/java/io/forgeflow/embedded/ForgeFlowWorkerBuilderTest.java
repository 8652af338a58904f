package io.forgeflow.embedded;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Settings that cannot work are refused at once, naming the setting and how to fix it. */
class ForgeFlowWorkerBuilderTest {

    /** A handler class without a no-argument constructor. */
    public static final class NeedsArgs implements JobHandler {
        public NeedsArgs(String ignored) {
        }

        @Override
        public void handle(JobContext ctx) {
        }
    }

    /** An abstract handler class. */
    public abstract static class Abstract implements JobHandler {
        public Abstract() {
        }
    }

    @Test
    void aHandlerNameMustBeWellFormedAndUnique() {
        assertThatThrownBy(() -> ForgeFlowWorker.builder().handler("send receipt", ctx -> { }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("handler name must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or "
                        + "digit, e.g. \"send-receipt\"; was 'send receipt'");
        assertThatThrownBy(() -> ForgeFlowWorker.builder().handler(null, ctx -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith("was null");
        assertThatThrownBy(() -> ForgeFlowWorker.builder().handler("a", ctx -> { }).handler("a", ctx -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("handler 'a' is registered twice");
    }

    @Test
    void aHandlerClassNeedsAPublicNoArgumentConstructorAndMustBeConcrete() {
        assertThatThrownBy(() -> ForgeFlowWorker.builder().handler("x", NeedsArgs.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a public constructor without arguments");
        assertThatThrownBy(() -> ForgeFlowWorker.builder().handler("x", Abstract.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith("is abstract");
    }

    @Test
    void concurrencyWorkerIdAndOutputAreBounded() {
        assertThatThrownBy(() -> ForgeFlowWorker.builder().concurrency(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("concurrency must be between 1 and 1000, was 0");
        assertThatThrownBy(() -> ForgeFlowWorker.builder().concurrency(1001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ForgeFlowWorker.builder().workerId(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("workerId must be 1 to 200 characters");
        assertThatThrownBy(() -> ForgeFlowWorker.builder().workerId("w".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ForgeFlowWorker.builder().maxOutputBytes(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void startNeedsAPoolAndSomethingToDo() {
        assertThatThrownBy(() -> ForgeFlowWorker.builder().handler("a", ctx -> { }).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dataSource is required");
        javax.sql.DataSource none = new org.postgresql.ds.PGSimpleDataSource();
        assertThatThrownBy(() -> ForgeFlowWorker.builder().dataSource(none).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("register at least one handler");
    }

    @Test
    void timingsThatCannotHoldALeaseAreRefusedBeforeAnyConnection() {
        javax.sql.DataSource none = new org.postgresql.ds.PGSimpleDataSource();
        assertThatThrownBy(() -> ForgeFlowWorker.builder().dataSource(none).handler("a", ctx -> { })
                .lease(java.time.Duration.ofSeconds(10)).heartbeatInterval(java.time.Duration.ofSeconds(6)).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be at most half the lease");
        assertThatThrownBy(() -> ForgeFlowWorker.builder().dataSource(none).handler("a", ctx -> { }).schema("Bad-Name").start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database schema must be");
    }

    @Test
    void theSchedulerRoleIsRefusedBehindATransactionPoolerBeforeAnyConnection() {
        javax.sql.DataSource none = new org.postgresql.ds.PGSimpleDataSource();
        assertThatThrownBy(() -> ForgeFlowWorker.builder().dataSource(none).handler("a", ctx -> { })
                .transactionPooling(true).scheduler(true).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scheduler(true) cannot go with transactionPooling(true)")
                .hasMessageContaining("leave the scheduler to the nodes");
    }
}
