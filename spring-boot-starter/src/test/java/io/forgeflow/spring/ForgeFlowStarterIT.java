package io.forgeflow.spring;

import com.fasterxml.jackson.databind.JsonNode;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.embedded.JobContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The starter in real Spring Boot applications on a real PostgreSQL: run by this module on Boot 3.5 and, from its
 * test-jar, by spring-boot-starter-boot4 on Boot 4.0. Each test starts the contexts it needs (non-web, short timings).
 */
class ForgeFlowStarterIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    /** What the handlers of the test application received. */
    static final BlockingQueue<Object> RECEIVED = new LinkedBlockingQueue<>();

    public record Receipt(String orderId, String email) {
    }

    /** An application service: an order row and its receipt job in one transaction. */
    public static class Orders {
        private final JdbcTemplate jdbc;
        private final ForgeFlow forgeFlow;

        public Orders(JdbcTemplate jdbc, ForgeFlow forgeFlow) {
            this.jdbc = jdbc;
            this.forgeFlow = forgeFlow;
        }

        @Transactional
        public Enqueued place(String orderId, boolean fail) {
            jdbc.update("INSERT INTO it_orders (id) VALUES (?)", orderId);
            Enqueued e = forgeFlow.job("send-receipt").args(new Receipt(orderId, orderId + "@example.com"))
                    .name("receipt-" + orderId).enqueue();
            if (fail) {
                throw new IllegalStateException("payment refused");
            }
            return e;
        }
    }

    public static class Handlers {
        @ForgeFlowHandler("send-receipt")
        public void sendReceipt(Receipt receipt, JobContext ctx) {
            RECEIVED.add(receipt);
        }

        @ForgeFlowHandler("raw")
        public void raw(JsonNode args) {
            RECEIVED.add(args);
        }
    }

    public static class Nightly {
        @Recurring(name = "nightly-report", cron = "0 2 * * *", zone = "Europe/Paris", overlap = Recurring.Overlap.SKIP)
        public void report() {
        }
    }

    public static class NightlyChanged {
        @Recurring(name = "nightly-report", cron = "30 3 * * *", zone = "Europe/Paris", overlap = Recurring.Overlap.SKIP)
        public void report() {
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class Base {
    }

    @Import(Base.class)
    public static class ShopApp {
        @Bean
        Orders orders(JdbcTemplate jdbc, ForgeFlow forgeFlow) {
            return new Orders(jdbc, forgeFlow);
        }

        @Bean
        Handlers handlers() {
            return new Handlers();
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Import(Base.class)
    public static class NightlyApp {
        @Bean
        Nightly nightly() {
            return new Nightly();
        }
    }

    @Import(Base.class)
    public static class NightlyChangedApp {
        @Bean
        NightlyChanged nightly() {
            return new NightlyChanged();
        }
    }

    /** An application without any @Recurring: its start pauses the ones it declared before. */
    @Import(Base.class)
    public static class NoScheduleApp {
    }

    static ConfigurableApplicationContext start(Class<?> app, String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "spring.datasource.url=" + pg.jdbcUrl(), "spring.datasource.username=" + pg.user(),
                "spring.datasource.password=" + pg.password(), "spring.datasource.hikari.maximum-pool-size=8",
                "spring.application.name=it", "forgeflow.poll-interval=200ms", "forgeflow.heartbeat=1s",
                "forgeflow.lease=4s", "forgeflow.drain-grace=2s", "forgeflow.retry-base=100ms"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE).properties(all.toArray(String[]::new))
                .run();
    }

    @Test
    void propertiesBindAndTheWorkerRunsWhatACommittedTransactionEnqueued() throws Exception {
        RECEIVED.clear();
        try (ConfigurableApplicationContext ctx = start(ShopApp.class, "forgeflow.worker-id=spring-it-1",
                "forgeflow.concurrency=3", "forgeflow.scheduler=false")) {
            ForgeFlowProperties properties = ctx.getBean(ForgeFlowProperties.class);
            assertThat(properties.getConcurrency()).isEqualTo(3);
            assertThat(properties.getPollInterval()).isEqualTo(Duration.ofMillis(200));
            assertThat(ctx.getBean(ForgeFlowLifecycle.class).worker().workerId()).isEqualTo("spring-it-1");
            assertThat(ctx.getBean(ForgeFlowLifecycle.class).worker().handlers()).containsExactlyInAnyOrder(
                    "send-receipt", "raw");
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            jdbc.execute("CREATE TABLE IF NOT EXISTS it_orders (id text PRIMARY KEY)");

            Orders orders = ctx.getBean(Orders.class);
            assertThatThrownBy(() -> orders.place("o-rolled-back", true)).hasMessage("payment refused");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM forgeflow.jobs WHERE name = 'receipt-o-rolled-back'",
                    Integer.class)).as("a rolled-back transaction leaves no job").isZero();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM it_orders WHERE id = 'o-rolled-back'",
                    Integer.class)).isZero();

            Enqueued placed = orders.place("o-1", false);
            assertThat(placed.created()).isTrue();
            assertThat(RECEIVED.poll(20, TimeUnit.SECONDS)).isEqualTo(new Receipt("o-1", "o-1@example.com"));

            // without a transaction: committed at once; a JsonNode handler gets the args as they were written
            ctx.getBean(ForgeFlow.class).enqueue("raw", Map.of("n", 7));
            Object raw = RECEIVED.poll(20, TimeUnit.SECONDS);
            assertThat(raw).isInstanceOf(JsonNode.class);
            assertThat(((JsonNode) raw).get("n").asInt()).isEqualTo(7);

            // meters: Micrometer's registry has the attempts by handler
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            awaitTrue("the attempt meter", () -> registry.find("forgeflow.attempts").tag("handler", "send-receipt")
                    .tag("outcome", "succeeded").counter() != null);
            assertThat(registry.find("forgeflow.claims").counter()).isNotNull();
            assertThat(registry.find("forgeflow.worker.slots").gauge()).isNotNull();

            // health (Boot 3's or Boot 4's indicator, called as the actuator would): UP here; DOWN when the database
            // cannot be reached (the same indicator type over a DataSource whose server does not answer)
            Object indicator = ctx.getBean("forgeFlowHealthIndicator");
            assertThat(status(indicator)).isEqualTo("UP");
            PGSimpleDataSource unreachable = new PGSimpleDataSource();
            unreachable.setURL("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2");
            Object down = indicator.getClass().getConstructor(ForgeFlowHealth.class).newInstance(new ForgeFlowHealth(
                    unreachable, "forgeflow", ctx.getBean(ForgeFlowLifecycle.class), ctx.getBean(ForgeFlowHandlers.class)));
            assertThat(status(down)).isEqualTo("DOWN");

            // bad input: the database names the field, and a @Transactional caller would roll back
            assertThatThrownBy(() -> ctx.getBean(ForgeFlow.class).job("raw").priority(12).enqueue())
                    .isInstanceOf(ForgeFlowException.class).hasMessageContaining("priority must be between 1 and 9")
                    .satisfies(e -> assertThat(((ForgeFlowException) e).sqlState()).isEqualTo("22023"));
        }
    }

    @Test
    void twoReplicasMakeOneRecurringJobAChangeUpdatesItAndRemovingItPausesIt() throws Exception {
        // no worker and no migrations (the fixture's database is migrated; the other test runs them): quick starts
        String[] noWorker = {"forgeflow.worker=false", "forgeflow.migrations=false"};
        CompletableFuture<ConfigurableApplicationContext> a = CompletableFuture.supplyAsync(
                () -> start(NightlyApp.class, noWorker));
        CompletableFuture<ConfigurableApplicationContext> b = CompletableFuture.supplyAsync(
                () -> start(NightlyApp.class, noWorker));
        a.get(60, TimeUnit.SECONDS).close();
        b.get(60, TimeUnit.SECONDS).close();
        JdbcTemplate jdbc = new JdbcTemplate(pg.dataSource());
        String query = "SELECT cron_expr || ' ' || timezone || ' ' || overlap || ' ' || status || ' ' || "
                + "(payload->>'handler') FROM forgeflow.jobs WHERE name = 'nightly-report'";
        assertThat(jdbc.queryForList(query, String.class)).containsExactly(
                "0 2 * * * Europe/Paris skip active nightly-report");

        try (ConfigurableApplicationContext changed = start(NightlyChangedApp.class, noWorker)) {
            assertThat(jdbc.queryForList(query, String.class)).containsExactly(
                    "30 3 * * * Europe/Paris skip active nightly-report");
        }
        try (ConfigurableApplicationContext removed = start(NoScheduleApp.class, noWorker)) {
            assertThat(jdbc.queryForList(query, String.class)).containsExactly(
                    "30 3 * * * Europe/Paris skip paused nightly-report");
        }
        // another application's recurring jobs are not its business
        try (ConfigurableApplicationContext other = start(NoScheduleApp.class, "forgeflow.worker=false",
                "forgeflow.migrations=false", "forgeflow.recurring-owner=billing")) {
            assertThat(jdbc.queryForObject("SELECT count(*) FROM forgeflow.jobs", Integer.class)).isEqualTo(1);
        }
        try (ConfigurableApplicationContext back = start(NightlyApp.class, noWorker)) {
            assertThat(jdbc.queryForList(query, String.class)).containsExactly(
                    "0 2 * * * Europe/Paris skip active nightly-report");
        }
    }

    /** Issue 45: a leading application hands the notices on, signed with forgeflow.notify-secret. */
    @Test
    void aLeadingApplicationHandsTheNoticesOnSignedWithItsSecret() throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(pg.dataSource());
        Long id = jdbc.queryForObject("INSERT INTO forgeflow.notices (job_id, job_name, event, url, created_at) "
                + "VALUES (gen_random_uuid(), 'nightly', 'paused', 'https://hooks.example.com/spring', now()) "
                + "RETURNING id", Long.class);
        try (ConfigurableApplicationContext ctx = start(NoScheduleApp.class, "forgeflow.migrations=false",
                "forgeflow.scheduler=true", "forgeflow.notify-secret=s3cret")) {
            assertThat(ctx.getBean(ForgeFlowProperties.class).getNotifySecret()).isEqualTo("s3cret");
            awaitTrue("the notice's http job", () -> jdbc.queryForObject("SELECT count(*) FROM forgeflow.jobs "
                    + "WHERE idempotency_key = ?", Integer.class, "notice:" + id) == 1);
            assertThat(jdbc.queryForObject("SELECT payload -> 'headers' ->> 'X-ForgeFlow-Signature' FROM forgeflow.jobs "
                    + "WHERE idempotency_key = ?", String.class, "notice:" + id)).startsWith("sha256=");
        } finally {
            // the other tests count this database's jobs
            jdbc.update("DELETE FROM forgeflow.runs WHERE job_id IN (SELECT id FROM forgeflow.jobs WHERE queue = "
                    + "'forgeflow-notices')");
            jdbc.update("DELETE FROM forgeflow.jobs WHERE queue = 'forgeflow-notices'");
        }
    }

    /** The status code of the health indicator's {@code health()}: the same call on Boot 3's and Boot 4's types. */
    static String status(Object indicator) throws ReflectiveOperationException {
        Object health = indicator.getClass().getMethod("health").invoke(indicator);
        return health.getClass().getMethod("getStatus").invoke(health).toString();
    }

    static void awaitTrue(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not appear within 20 s");
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling a condition with a deadline
        }
    }
}
