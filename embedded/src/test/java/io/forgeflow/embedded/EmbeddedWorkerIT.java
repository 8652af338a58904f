package io.forgeflow.embedded;

import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.adapter.postgres.PostgresHandlerRegistry;
import io.forgeflow.adapter.postgres.PostgresRunRepository;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.RunLifecycleGuard;
import io.forgeflow.application.executor.HandlerWaits;
import io.forgeflow.application.run.CancelRun;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.client.jdbc.ForgeFlowJdbc;
import io.forgeflow.client.jdbc.JobRequest;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.forgeflow.embedded.EmbeddedFixture.await;
import static io.forgeflow.embedded.EmbeddedFixture.fast;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An embedded worker in this test JVM, on a real PostgreSQL, with the application's own HikariCP pool; jobs are
 * enqueued in the application's transactions with client-jdbc, as an application would.
 */
class EmbeddedWorkerIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    HikariDataSource app;
    final List<ForgeFlowWorker> workers = new ArrayList<>();

    @BeforeEach
    void applicationPool() {
        app = EmbeddedFixture.applicationPool(pg, 30);
    }

    @AfterEach
    void stop() {
        workers.forEach(ForgeFlowWorker::close);
        app.close();
    }

    ForgeFlowWorker started(ForgeFlowWorker.Builder builder) {
        ForgeFlowWorker worker = builder.start();
        workers.add(worker);
        return worker;
    }

    Enqueued enqueue(JobRequest request) throws SQLException {
        try (Connection c = app.getConnection()) {
            c.setAutoCommit(false);
            Enqueued e = ForgeFlowJdbc.enqueue(c, request);
            c.commit();
            return e;
        }
    }

    static String status(String runId) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT status FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", runId).mapTo(String.class).one());
    }

    static Map<String, Object> run(String runId) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT status, attempt, error, output, worker_id FROM runs "
                + "WHERE id = CAST(:id AS uuid)").bind("id", runId).mapToMap().one());
    }

    static List<Map<String, Object>> attempts(String runId) {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT attempt, outcome, error, worker_id FROM run_attempts "
                + "WHERE run_id = CAST(:id AS uuid) ORDER BY attempt").bind("id", runId).mapToMap().list());
    }

    @Test
    void anOrderAndItsReceiptCommittedInOneTransactionRunTheHandlerInProcessAndLeaveThePoolAsItWas() throws Exception {
        Map<String, String> sent = new ConcurrentHashMap<>();
        ForgeFlowWorker worker = started(fast(app, "billing-7").handler("send-receipt", ctx -> {
            sent.put(ctx.runId(), ctx.payload().get("order_id").asText() + " attempt " + ctx.attempt());
            ctx.output("receipt sent for order " + ctx.payload().get("order_id").asText());
        }));
        try (Connection c = app.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE orders (id bigint PRIMARY KEY, total numeric)");
        }
        Enqueued enqueued;
        try (Connection c = app.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("INSERT INTO orders VALUES (42, 19.90)");
            }
            enqueued = ForgeFlowJdbc.enqueue(c, JobRequest.handler("receipt-42", "send-receipt",
                    Map.of("order_id", 42)).build());
            c.commit();
        }
        await("the receipt's run succeeds", Duration.ofSeconds(20), () -> "succeeded".equals(status(enqueued.runId())));

        assertThat(sent).containsEntry(enqueued.runId(), "42 attempt 1");
        assertThat(attempts(enqueued.runId())).singleElement()
                .satisfies(a -> assertThat(a.get("worker_id")).isEqualTo(worker.workerId()));
        assertThat((String) run(enqueued.runId()).get("output")).isEqualTo("receipt sent for order 42");
        // every connection ForgeFlow borrowed went back with the application's settings (20 held at once: the pool
        // hands out each idle one, not the same one again)
        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                borrowed.add(app.getConnection());
            }
            for (Connection c : borrowed) {
                try (Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT current_setting('search_path'), current_setting('statement_timeout'), "
                             + "current_setting('application_name'), current_setting('synchronous_commit')")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo("\"$user\", public");
                    assertThat(rs.getString(2)).isEqualTo("0");
                    assertThat(rs.getString(3)).doesNotContain("forgeflow");
                    assertThat(rs.getString(4)).isEqualTo("on");
                }
            }
        } finally {
            for (Connection c : borrowed) {
                c.close();
            }
        }
    }

    @Test
    void aThrowingHandlerIsRetriedThenDeadLetteredWithTheExceptionsMessage() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        started(fast(app, "w-throws").handler("print-label", ctx -> {
            calls.incrementAndGet();
            throw new IllegalStateException("printer on fire");
        }));
        Enqueued e = enqueue(JobRequest.handler("label", "print-label", null).maxAttempts(3).build());

        await("the run is dead", Duration.ofSeconds(30), () -> "dead".equals(status(e.runId())));
        assertThat(calls).hasValue(3);
        assertThat(run(e.runId()).get("error")).isEqualTo("printer on fire");
        assertThat((String) run(e.runId()).get("output")).contains("java.lang.IllegalStateException: printer on fire");
        assertThat(attempts(e.runId())).extracting(a -> a.get("outcome")).containsExactly("failed", "failed", "failed");
    }

    @Test
    void aJobsOwnRetryPolicyDecidesTheBackoffNotTheWorkersBase() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        started(fast(app, "w-own-retry").retryBase(Duration.ofHours(1)).handler("flaky", ctx -> {
            calls.incrementAndGet();
            throw new IllegalStateException("still down");
        }));
        Enqueued e = enqueue(JobRequest.handler("flaky", "flaky", null).maxAttempts(3).retry(1, 2).build());

        // with the worker's own base of 1 h the second attempt would wait up to an hour
        await("the run is dead", Duration.ofSeconds(30), () -> "dead".equals(status(e.runId())));
        assertThat(calls).hasValue(3);
        Map<String, Object> bounds = pg.jdbi().withHandle(h -> h.createQuery("SELECT "
                + "r.scheduled_for BETWEEN a2.finished_at AND a2.finished_at + interval '2 seconds' AS last_within_max, "
                + "a2.started_at <= a1.finished_at + interval '1.9 seconds' AS first_within_base "
                + "FROM runs r JOIN run_attempts a1 ON a1.run_id = r.id AND a1.attempt = 1 "
                + "JOIN run_attempts a2 ON a2.run_id = r.id AND a2.attempt = 2 WHERE r.id = CAST(:id AS uuid)")
                .bind("id", e.runId()).mapToMap().one());
        assertThat(bounds).containsEntry("last_within_max", true).containsEntry("first_within_base", true);
    }

    @Test
    void aPermanentFailureIsDeadAfterOneAttemptWhateverAttemptsAreLeft() throws Exception {
        started(fast(app, "w-permanent")
                .handler("refund", ctx -> {
                    throw ctx.failPermanently("order " + ctx.payload().get("order_id").asInt() + " does not exist");
                })
                .handler("typed", ctx -> ctx.payloadAs(Order.class)));
        Enqueued missing = enqueue(JobRequest.handler("refund", "refund", Map.of("order_id", 7)).maxAttempts(5).build());
        Enqueued unreadable = enqueue(JobRequest.handler("typed", "typed", Map.of("orderId", "not a number"))
                .maxAttempts(5).build());

        await("both runs are dead", Duration.ofSeconds(20),
                () -> "dead".equals(status(missing.runId())) && "dead".equals(status(unreadable.runId())));
        assertThat(run(missing.runId())).containsEntry("attempt", 1).containsEntry("error", "order 7 does not exist");
        assertThat(run(unreadable.runId())).containsEntry("attempt", 1);
        assertThat((String) run(unreadable.runId()).get("error")).startsWith("payload.args cannot be read as Order");
    }

    @Test
    void aHandlerSnoozesWithoutSpendingAnAttemptAndGivesUpWithItsReason() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        started(fast(app, "w-snooze")
                .handler("wait-for-stock", ctx -> {
                    if (calls.incrementAndGet() < 3) {
                        ctx.output("no stock yet");
                        throw Snooze.of(Duration.ofMillis(200));
                    }
                })
                .handler("ship", ctx -> {
                    throw GiveUp.because("order " + ctx.payload().get("order_id").asInt() + " was deleted");
                }));
        Enqueued snoozing = enqueue(JobRequest.handler("stock", "wait-for-stock", null).maxAttempts(1).build());
        Enqueued hopeless = enqueue(JobRequest.handler("ship", "ship", Map.of("order_id", 9)).maxAttempts(5).build());

        await("the snoozing run succeeds and the hopeless one is cancelled", Duration.ofSeconds(20),
                () -> "succeeded".equals(status(snoozing.runId())) && "cancelled".equals(status(hopeless.runId())));
        // one attempt allowed, two snoozes: a snooze spends none
        assertThat(calls).hasValue(3);
        assertThat(attempts(snoozing.runId())).extracting(a -> a.get("outcome"))
                .containsExactly("snoozed", "snoozed", "succeeded");
        assertThat(attempts(snoozing.runId())).extracting(a -> a.get("error"))
                .containsExactly("snoozed for 200ms", "snoozed for 200ms", null);
        int snoozes = pg.jdbi().withHandle(h -> h.createQuery("SELECT snoozes FROM runs WHERE id = CAST(:id AS uuid)")
                .bind("id", snoozing.runId()).mapTo(Integer.class).one());
        assertThat(snoozes).isEqualTo(2);
        assertThat(run(hopeless.runId())).containsEntry("attempt", 1).containsEntry("error", "gave up: order 9 was deleted");
        assertThat(attempts(hopeless.runId())).extracting(a -> a.get("outcome")).containsExactly("gave_up");
        assertThatThrownBy(() -> Snooze.of(Duration.ofDays(31))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 to 30 days");
        assertThatThrownBy(() -> Snooze.of(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(Snooze.of(Duration.ofSeconds(5)).duration()).isEqualTo(Duration.ofSeconds(5));
        assertThat(GiveUp.because(" ").getMessage()).isEqualTo("no reason given");
    }

    /**
     * Issue 44: 50 runs of one sequence start in submission order and never two at once, while another key's runs
     * interleave with them on two workers; a dead run blocks its sequence (on_dead block) or lets it go on (continue).
     */
    @Test
    void aSequenceStartsItsRunsOneAtATimeInOrderWhileAnotherKeyInterleaves() throws Exception {
        List<Integer> started = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger otherDuringSequence = new AtomicInteger();
        AtomicInteger otherDone = new AtomicInteger();
        JobHandler step = ctx -> {
            String key = ctx.payload().get("key").asText();
            if (key.equals("order-1")) {
                if (inFlight.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                started.add(ctx.payload().get("n").asInt());
                Thread.sleep(5);
                inFlight.decrementAndGet();
            } else {
                if (inFlight.get() > 0 || (!started.isEmpty() && started.size() < 50)) {
                    otherDuringSequence.incrementAndGet();
                }
                Thread.sleep(5);
                otherDone.incrementAndGet();
            }
        };
        // one worker leads too: its sweep advances a sequence whose head ended while a submitter held the key
        started(fast(app, "w-seq-a").scheduler(true).schedulerTick(Duration.ofMillis(100)).handler("step", step));
        started(fast(app, "w-seq-b").handler("step", step));
        List<String> order1 = new ArrayList<>();
        for (int n = 0; n < 50; n++) {
            order1.add(enqueue(JobRequest.handler("step-" + n, "step", Map.of("key", "order-1", "n", n))
                    .sequence("order-1", null).build()).runId());
            if (n % 5 == 0) {
                enqueue(JobRequest.handler("other-" + n, "step", Map.of("key", "order-2", "n", n))
                        .sequence("order-2", null).build());
            }
        }

        await("the sequence ran", Duration.ofSeconds(60), () -> started.size() == 50 && otherDone.get() == 10);
        assertThat(started).as("submission order").isEqualTo(java.util.stream.IntStream.range(0, 50).boxed()
                .collect(java.util.stream.Collectors.toList()));
        assertThat(overlaps).as("never two at once").hasValue(0);
        assertThat(otherDuringSequence.get()).as("the other key's runs went on meanwhile").isPositive();
        assertThat(order1).allSatisfy(id -> assertThat(status(id)).isEqualTo("succeeded"));
    }

    @Test
    void aDeadRunBlocksItsSequenceUntilRequeuedOrLetsItGoOn() throws Exception {
        started(fast(app, "w-seq-dead").handler("fragile", ctx -> {
            if (ctx.payload().get("fail").asBoolean()) {
                throw ctx.failPermanently("broken");
            }
        }));
        Enqueued blocker = enqueue(JobRequest.handler("b1", "fragile", Map.of("fail", true)).sequence("blk", "block")
                .build());
        Enqueued blocked = enqueue(JobRequest.handler("b2", "fragile", Map.of("fail", false)).sequence("blk", null)
                .build());
        Enqueued dying = enqueue(JobRequest.handler("c1", "fragile", Map.of("fail", true)).sequence("cnt", "continue")
                .build());
        Enqueued goesOn = enqueue(JobRequest.handler("c2", "fragile", Map.of("fail", false)).sequence("cnt", null)
                .build());

        await("the dead run let its sequence go on", Duration.ofSeconds(20),
                () -> "succeeded".equals(status(goesOn.runId())) && "dead".equals(status(blocker.runId())));
        assertThat(status(dying.runId())).isEqualTo("dead");
        assertThat(status(blocked.runId())).as("blocked behind a dead run").isEqualTo("waiting");
        // the operator requeues the blocker: it runs again first (and dies again: the sequence stays blocked)
        RunLifecycleGuard.shortcut(pg.jdbi(), "UPDATE runs SET status = 'pending', finished_at = NULL, "
                + "max_attempts = max_attempts + 1 WHERE id = CAST(? AS uuid)", blocker.runId());
        await("the requeued blocker ran again", Duration.ofSeconds(20),
                () -> attempts(blocker.runId()).size() == 2 && "dead".equals(status(blocker.runId())));
        assertThat(status(blocked.runId())).isEqualTo("waiting");
        // cancelling the blocked run's job is always possible; a waiting run of a sequence is cancelled like any other
        try (Connection c = app.getConnection(); Statement st = c.createStatement()) {
            assertThatThrownBy(() -> st.execute("SELECT * FROM forgeflow.enqueue('x', 'noop', sequence_key => ' ')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("sequence_key must be 1 to 200 characters")
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("22023"));
            assertThatThrownBy(() -> st.execute("SELECT * FROM forgeflow.enqueue('x', 'noop', on_dead => 'block')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("on_dead needs sequence_key");
            assertThatThrownBy(() -> st.execute("SELECT * FROM forgeflow.enqueue('x', 'noop', sequence_key => 'k', "
                    + "on_dead => 'skip')")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("on_dead must be 'block' or 'continue'");
        }
        assertThatThrownBy(() -> JobRequest.handler("x", "fragile", null).sequence("k", "skip").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("on_dead must be");
        assertThatThrownBy(() -> JobRequest.handler("x", "fragile", null).sequence(null, "block").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("on_dead needs a sequence key");
    }

    /** What a typed handler reads its args as. */
    public record Order(long orderId) {
    }

    @Test
    void payloadAsReadsTheArgsIntoTheHandlersOwnType() throws Exception {
        List<Order> seen = new CopyOnWriteArrayList<>();
        started(fast(app, "w-typed").handler("typed", ctx -> seen.add(ctx.payloadAs(Order.class))));
        Enqueued e = enqueue(JobRequest.handler("typed", "typed", Map.of("orderId", 99, "note", "ignored")).build());

        await("the run succeeds", Duration.ofSeconds(20), () -> "succeeded".equals(status(e.runId())));
        assertThat(seen).containsExactly(new Order(99));
    }

    @Test
    void aLongHandlerIsInterruptedAndTimedOut() throws Exception {
        AtomicBoolean interrupted = new AtomicBoolean();
        started(fast(app, "w-slow").handler("slow", ctx -> {
            try {
                TimeUnit.SECONDS.sleep(60);
            } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
            }
        }));
        Enqueued e = enqueue(JobRequest.handler("slow", "slow", null).timeoutSeconds(1).maxAttempts(1).build());

        await("the run is dead", Duration.ofSeconds(20), () -> "dead".equals(status(e.runId())));
        assertThat(interrupted).isTrue();
        assertThat(attempts(e.runId())).singleElement().satisfies(a -> {
            assertThat(a.get("outcome")).isEqualTo("timed_out");
            assertThat((String) a.get("error")).startsWith("timed out after 1s: the handler was interrupted");
        });
    }

    @Test
    void aHandlerThatIgnoresItsInterruptionIsReportedAndItsAttemptEndsWithoutIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger reported = new AtomicInteger();
        ForgeFlowWorker worker = started(fast(app, "w-stubborn").metrics(new WorkerMetrics() {
            @Override
            public void handlerIgnoredInterruption(String handler, String runId, int attempt) {
                reported.incrementAndGet();
            }
        }).handler("stubborn", ctx -> {
            while (release.getCount() > 0) {
                Thread.interrupted(); // swallows every interruption
                Thread.onSpinWait();
            }
        }));
        Enqueued e = enqueue(JobRequest.handler("stubborn", "stubborn", null).timeoutSeconds(1).maxAttempts(1).build());

        await("the run is dead", Duration.ofSeconds(20), () -> "dead".equals(status(e.runId())));
        assertThat(attempts(e.runId())).singleElement().satisfies(a -> {
            assertThat(a.get("outcome")).isEqualTo("timed_out");
            assertThat((String) a.get("error")).contains("the handler ignored the interruption");
        });
        assertThat(reported).hasValue(1);
        assertThat(worker.handlersLeftBehind()).isEqualTo(1);
        release.countDown();
        await("the left-behind handler ends", Duration.ofSeconds(10), () -> worker.handlersLeftBehind() == 0);
    }

    @Test
    void anOperatorsCancelStopsARunningHandler() throws Exception {
        List<String> reasons = new CopyOnWriteArrayList<>();
        CountDownLatch started = new CountDownLatch(1);
        started(fast(app, "w-cancel").handler("waits", ctx -> {
            started.countDown();
            try {
                ctx.cancellation().await(Duration.ofSeconds(60));
            } finally { // woken by the signal or by the interruption that follows it
                reasons.add(String.valueOf(ctx.cancellation().reason()));
            }
        }));
        Enqueued e = enqueue(JobRequest.handler("waits", "waits", null).build());
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

        Run asked = new CancelRun(new PostgresRunRepository(pg.jdbi(), null)).cancel(e.runId());
        assertThat(asked.cancelRequested()).isTrue();
        await("the run is cancelled", Duration.ofSeconds(20), () -> "cancelled".equals(status(e.runId())));
        assertThat(reasons).singleElement().asString().contains("cancelled by an operator");
        assertThat(attempts(e.runId())).extracting(a -> a.get("outcome")).containsExactly("cancelled");
    }

    @Test
    void eachWorkerClaimsOnlyItsOwnHandlersAndARunForAHandlerNobodyHasWaits() throws Exception {
        Map<String, String> ranOn = new ConcurrentHashMap<>();
        ForgeFlowWorker a = started(fast(app, "w-a").handler("alpha", ctx -> ranOn.put(ctx.runId(), "w-a")));
        ForgeFlowWorker b = started(fast(app, "w-b").handler("beta", ctx -> ranOn.put(ctx.runId(), "w-b")));
        List<Enqueued> alphas = new ArrayList<>();
        List<Enqueued> betas = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            alphas.add(enqueue(JobRequest.handler("a" + i, "alpha", Map.of("i", i)).build()));
            betas.add(enqueue(JobRequest.handler("b" + i, "beta", Map.of("i", i)).build()));
        }
        Enqueued gamma = enqueue(JobRequest.handler("g", "gamma", null).build());

        await("every alpha and beta run succeeds", Duration.ofSeconds(30), () -> ranOn.size() == 40);
        alphas.forEach(e -> assertThat(ranOn).containsEntry(e.runId(), a.workerId()));
        betas.forEach(e -> assertThat(ranOn).containsEntry(e.runId(), b.workerId()));
        assertThat(status(gamma.runId())).isEqualTo("pending");
        assertThat(attempts(gamma.runId())).isEmpty();
        Run pendingGamma = new PostgresRunRepository(pg.jdbi(), null).find(gamma.runId()).orElseThrow();
        HandlerWaits waits = new HandlerWaits(new PostgresHandlerRegistry(pg.jdbi(), null));
        assertThat(waits.snapshot().of(pendingGamma)).isEqualTo("handler gamma");

        started(fast(app, "w-c").handler("gamma", ctx -> ranOn.put(ctx.runId(), "w-c")));
        await("the waiting run succeeds once a worker has its handler", Duration.ofSeconds(20),
                () -> "succeeded".equals(status(gamma.runId())));
        assertThat(ranOn).containsEntry(gamma.runId(), "w-c");
        assertThat(waits.snapshot().of(pendingGamma)).isNull();
    }

    @Test
    void aWorkerShowsAmongTheNodesAndWithdrawsItsHandlersAndRowWhenClosed() {
        ForgeFlowWorker worker = started(fast(app, "w-shown").handler("one", ctx -> { }).handler("two", ctx -> { }));
        PostgresHandlerRegistry registry = new PostgresHandlerRegistry(pg.jdbi(), null);
        assertThat(registry.liveHandlers()).containsExactlyInAnyOrder("one", "two");
        await("its node row is written", Duration.ofSeconds(10), () -> pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM nodes WHERE worker_id = 'w-shown'").mapTo(Integer.class).one()) == 1);
        List<String> roles = pg.jdbi().withHandle(h -> h.createQuery("SELECT unnest(roles) FROM nodes WHERE worker_id = 'w-shown'")
                .mapTo(String.class).list());
        assertThat(roles).containsExactlyInAnyOrder("embedded", "worker");
        int javaKnown = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM executors WHERE name = 'java'")
                .mapTo(Integer.class).one());
        assertThat(javaKnown).isEqualTo(1);

        worker.close();
        assertThat(registry.liveHandlers()).isEmpty();
        int nodes = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM nodes").mapTo(Integer.class).one());
        assertThat(nodes).isZero();
    }

    @Test
    void closeLetsARunningHandlerFinishWithinTheGraceAndReleasesOneThatDoesNot() throws Exception {
        CountDownLatch bothStarted = new CountDownLatch(2);
        CountDownLatch never = new CountDownLatch(1);
        ForgeFlowWorker worker = started(fast(app, "w-drain").drainGrace(Duration.ofSeconds(2))
                .handler("quick", ctx -> {
                    bothStarted.countDown();
                    never.await(500, TimeUnit.MILLISECONDS); // half a second of work, still going when close() starts
                })
                .handler("endless", ctx -> {
                    bothStarted.countDown();
                    ctx.cancellation().await(Duration.ofMinutes(5));
                }));
        Enqueued quick = enqueue(JobRequest.handler("quick", "quick", null).build());
        Enqueued endless = enqueue(JobRequest.handler("endless", "endless", null).maxAttempts(1).build());
        assertThat(bothStarted.await(20, TimeUnit.SECONDS)).isTrue();

        worker.close();

        assertThat(status(quick.runId())).isEqualTo("succeeded");
        assertThat(run(endless.runId())).containsEntry("status", "pending").containsEntry("attempt", 1);
        assertThat(attempts(endless.runId())).extracting(a -> a.get("outcome")).containsExactly("released");
    }

    /**
     * Issue 45: a leading embedded worker dispatches the notices too (a cluster of embedded workers has no other
     * leader): the outbox row becomes an http job of forgeflow-notices keyed notice:<id>, signed with its secret.
     */
    @Test
    void aLeadingWorkerHandsTheNoticesOnAsSignedHttpJobs() throws Exception {
        io.forgeflow.domain.job.Job job = pg.insert(io.forgeflow.adapter.postgres.testing.TestJobs.aJob()
                .withExecutor("java").withPayload(Map.of("handler", "tick")));
        long id = pg.jdbi().withHandle(h -> h.createQuery("INSERT INTO notices (job_id, job_name, event, url, error, "
                + "created_at) VALUES (CAST(:job AS uuid), 'nightly', 'dead', 'https://hooks.example.com/ff', 'boom', "
                + "now()) RETURNING id").bind("job", job.id()).mapTo(Long.class).one());
        ForgeFlowWorker worker = started(fast(app, "w-notices").scheduler(true).schedulerTick(Duration.ofMillis(100))
                .notifySecret("s3cret").handler("tick", ctx -> { }));

        await("this worker leads", Duration.ofSeconds(10), worker::isLeader);
        await("the notice is handed on", Duration.ofSeconds(30), () -> pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM notices").mapTo(Integer.class).one()) == 0);

        Map<String, Object> sent = pg.jdbi().withHandle(h -> h.createQuery("SELECT executor, queue, notify::text AS "
                + "notify, payload -> 'headers' ->> 'X-ForgeFlow-Signature' AS signature, payload ->> 'url' AS url "
                + "FROM jobs WHERE idempotency_key = :key").bind("key", "notice:" + id).mapToMap().one());
        assertThat(sent.get("executor")).isEqualTo("http");
        assertThat(sent.get("queue")).isEqualTo("forgeflow-notices");
        assertThat(sent.get("url")).isEqualTo("https://hooks.example.com/ff");
        assertThat(sent.get("notify")).as("the notices' own jobs send none").isNull();
        assertThat((String) sent.get("signature")).startsWith("sha256=");
    }

    @Test
    void theSchedulerRoleRecoversADeadWorkersRunAndFiresCronTicks() throws Exception {
        Set<String> ran = ConcurrentHashMap.newKeySet();
        ForgeFlowWorker worker = started(fast(app, "w-leader").scheduler(true).schedulerTick(Duration.ofMillis(200))
                .handler("tick", ctx -> ran.add(ctx.runId())));
        Run orphan = pg.insert(io.forgeflow.adapter.postgres.testing.TestRuns.aRun().withExecutor("java")
                .withPayload(Map.of("handler", "tick")).running().leasedBy("vanished")
                .leaseUntil(java.time.Instant.now().minusSeconds(60)).withMaxAttempts(3));
        pg.insert(io.forgeflow.adapter.postgres.testing.TestJobs.aJob().withExecutor("java")
                .withPayload(Map.of("handler", "tick")).recurring("* * * * * *", java.time.Instant.now()));

        await("this worker leads", Duration.ofSeconds(10), worker::isLeader);
        await("the orphan is recovered and run here", Duration.ofSeconds(30), () -> ran.contains(orphan.id()));
        assertThat(attempts(orphan.id())).extracting(a -> a.get("outcome")).startsWith("lease_expired");
        await("cron ticks fire and run here", Duration.ofSeconds(30), () -> ran.size() >= 3);
    }
}
