package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40: enqueue() sends no NOTIFY while a worker node watches for SQL enqueues (forgeflow_sql_wakeups.sql), and
 * the node still claims each such run within a tick of its commit. Its own database: a promise left standing would
 * silence other classes' enqueues.
 */
class SqlEnqueueWatchIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migratedAlone();

    final List<AutoCloseable> closing = new ArrayList<>();
    PostgresWorkSignal node;
    SqlEnqueueWatch watch;
    final AtomicInteger missedEvents = new AtomicInteger();
    /** Set by the node's wake-up: the id of a run a claimer woken now would find (null: none watched for). */
    final AtomicReference<String> lookFor = new AtomicReference<>();
    final AtomicBoolean sawItAtAWakeUp = new AtomicBoolean();
    Connection bystander;

    @BeforeEach
    void aWorkerNodeAndABystanderListening() throws Exception {
        new PostgresExecutorCatalog(pg.jdbi()).record(List.of("watched"), "test");
        node = new PostgresWorkSignal(pg.connectionSupplier());
        closing.add(node);
        watch = node.watchSqlEnqueues(pg.jdbi(), true, this::wokenUp, missedEvents::incrementAndGet);
        bystander = pg.connectionSupplier().get();
        closing.add(bystander);
        try (Statement st = bystander.createStatement()) {
            st.execute("LISTEN " + PostgresWorkSignal.CHANNEL);
            st.execute("LISTEN " + PostgresRunEvents.CHANNEL);
        }
    }

    @AfterEach
    void closeAndLetThePromiseRunOut() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        Conditions.awaitTrue(() -> !promiseStands(), Duration.ofSeconds(10), "no promise stands");
    }

    @Test
    void whileANodeWatchesAnEnqueueSendsNoNotifyAndTheNodeLooksAgainAfterItsLateCommit() throws Exception {
        startAWatch();
        notifications(Duration.ofMillis(300)); // the burst's own

        String run;
        try (Connection app = app()) {
            run = enqueue(app, "late");
            lookFor.set(run);
            // the scenario, not a wait: an application that keeps its transaction open past the watch's quiet
            // time, so that only the open transaction keeps the node watching
            Thread.sleep(SqlEnqueueWatch.QUIET.plusMillis(500).toMillis());
            assertThat(watch.watching()).as("the node watches while a silent enqueue is open").isTrue();
            assertThat(promiseStands()).isTrue();
            app.commit();
        }
        Conditions.awaitTrue(sawItAtAWakeUp::get, Duration.ofSeconds(10),
                "a wake-up of the node at which the committed run was there to claim");
        assertThat(notifications(Duration.ofMillis(300))).as("NOTIFYs of the silent enqueue").isEmpty();
        assertThat(scalar("SELECT last_value FROM forgeflow_sql_silent")).isPositive();
        assertThat(missedEvents.get()).as("the node's event streams were told to re-read").isPositive();
    }

    @Test
    void aRolledBackSilentEnqueueStoresNothingAndTheWatchEnds() throws Exception {
        startAWatch();
        try (Connection app = app()) {
            enqueue(app, "lost");
            app.rollback();
        }
        Conditions.awaitTrue(() -> !watch.watching(), Duration.ofSeconds(10), "the watch ended");
        assertThat(scalar("SELECT count(*) FROM runs WHERE payload ->> 'tag' = 'lost'")).isZero();
    }

    @Test
    void onceTheWatchHasEndedTheNextEnqueueNotifiesAgain() throws Exception {
        startAWatch();
        Conditions.awaitTrue(() -> !watch.watching() && !promiseStands(), Duration.ofSeconds(10),
                "the watch ended and its promise ran out");
        notifications(Duration.ofMillis(200));

        try (Connection app = app()) {
            enqueue(app, "after");
            app.commit();
        }

        List<PGNotification> got = notifications(Duration.ofSeconds(10));
        assertThat(got).extracting(PGNotification::getName).contains(PostgresWorkSignal.CHANNEL, PostgresRunEvents.CHANNEL);
        assertThat(got).filteredOn(n -> n.getName().equals(PostgresWorkSignal.CHANNEL))
                .extracting(PGNotification::getParameter).containsOnly(PostgresWorkSignal.SQL_PAYLOAD);
    }

    @Test
    void aNodeThatHeardNoneOfItJoinsAWatchAnotherNodeKeeps() throws Exception {
        try (PostgresWorkSignal late = new PostgresWorkSignal(() -> {
            throw new IllegalStateException("this node listens to nothing");
        })) {
            SqlEnqueueWatch lateWatch = late.watchSqlEnqueues(pg.jdbi(), true, () -> { });
            startAWatch();
            try (Connection app = app()) {
                enqueue(app, "keep-it-going");
                // open: the first node keeps promising; the second finds the promise at its next idle check
                Conditions.awaitTrue(lateWatch::watching, SqlEnqueueWatch.IDLE_CHECK.multipliedBy(10),
                        "the node that heard nothing joined the watch");
                app.commit();
            }
        }
    }

    @Test
    void aNodeWithoutTheWorkerRoleWakesNobodyButTellsItsEventStreamsToReRead() throws Exception {
        AtomicInteger apiWakes = new AtomicInteger();
        AtomicInteger apiMissed = new AtomicInteger();
        try (PostgresWorkSignal api = new PostgresWorkSignal(pg.connectionSupplier())) {
            SqlEnqueueWatch observer = api.watchSqlEnqueues(pg.jdbi(), false, apiWakes::incrementAndGet,
                    apiMissed::incrementAndGet);
            startAWatch();
            Conditions.awaitTrue(observer::watching, SqlEnqueueWatch.IDLE_CHECK.multipliedBy(10),
                    "the api node observes the watch");
            try (Connection app = app()) {
                enqueue(app, "observed");
                app.commit();
            }
            Conditions.awaitTrue(() -> apiMissed.get() > 0, Duration.ofSeconds(10),
                    "the api node told its event streams to re-read");
            assertThat(apiWakes.get()).as("wake-ups of a node that claims nothing").isZero();
        }
    }

    /** A claimer woken now: would it find the run looked for? */
    private void wokenUp() {
        String run = lookFor.get();
        if (run != null && scalar("SELECT count(*) FROM runs WHERE id = CAST('" + run + "' AS uuid)") == 1) {
            sawItAtAWakeUp.set(true);
        }
    }

    /** Enqueues from SQL, each committed, until the node watches (two of them close together start it). */
    private void startAWatch() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Connection app = app()) {
            while (!watch.watching() || !promiseStands()) {
                assertThat(System.nanoTime() - deadline).as("the node started watching within 30 s").isNegative();
                enqueue(app, "burst");
                app.commit();
            }
        }
    }

    private Connection app() throws SQLException {
        Connection c = pg.connectionSupplier().get();
        c.setAutoCommit(false);
        return c;
    }

    private static String enqueue(Connection app, String tag) throws SQLException {
        try (Statement st = app.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT run_id FROM forgeflow.enqueue(name => 'w', executor => 'watched', payload => '{\"tag\": \""
                        + tag + "\"}')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private boolean promiseStands() {
        return scalar("SELECT CAST(last_value > floor(extract(epoch FROM clock_timestamp()) * 1000) AS int) "
                + "FROM forgeflow_sql_watch") == 1;
    }

    private long scalar(String sql) {
        return pg.jdbi().withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }

    private List<PGNotification> notifications(Duration wait) throws SQLException {
        PGNotification[] got = bystander.unwrap(PGConnection.class).getNotifications((int) wait.toMillis());
        return got == null ? List.of() : List.of(got);
    }
}
