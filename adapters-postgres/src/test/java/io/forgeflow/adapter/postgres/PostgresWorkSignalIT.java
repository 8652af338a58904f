package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class PostgresWorkSignalIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresWorkSignal sender = new PostgresWorkSignal(pg.connectionSupplier());
    final PostgresWorkSignal receiver = new PostgresWorkSignal(pg.connectionSupplier());
    final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        threads.shutdownNow();
        sender.close();
        receiver.close();
    }

    @Test
    void aSignalOnOneNodeWakesAnAwaitOnAnother() throws Exception {
        drain(receiver);
        CompletableFuture<Boolean> woken = CompletableFuture.supplyAsync(() -> awaitQuietly(receiver,
                Duration.ofSeconds(30)), threads);

        sender.runsBecameDue();

        // true: woken by the signal (a timeout answers false); how fast is the bench's to measure (it was a 1 s bound)
        assertThat(woken.get(60, TimeUnit.SECONDS)).as("the other node's await, woken by the signal").isTrue();
    }

    @Test
    void aSignalWakesAnAwaitOfTheSameNodeAtOnceWithoutTheNotificationsRoundTrip() throws Exception {
        // a node whose database cannot be reached sends no NOTIFY and hears none: only the local hand-off remains
        try (PostgresWorkSignal cutOff = new PostgresWorkSignal(() -> {
            throw new IllegalStateException("no database here");
        })) {
            cutOff.runsBecameDue();

            assertThat(cutOff.await(Duration.ofMillis(500))).isTrue();
        }
    }

    @Test
    void aNodesOwnNotificationDoesNotWakeItsWaitersASecondTime() throws Exception {
        drain(sender);
        drain(receiver);
        sender.runsBecameDue();
        assertThat(sender.await(Duration.ofSeconds(1))).as("the local hand-off").isTrue();

        // once another node heard the NOTIFY, the sender's own listening connection has had it too
        assertThat(receiver.await(Duration.ofSeconds(5))).as("the other node's wake-up").isTrue();
        // counted when the sender's statement returned, which may be after the receiver heard it (a busy machine)
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (sender.notificationsSent() < 1 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(5); // polling a counter, not waiting for a fixed time
        }
        assertThat(sender.notificationsSent()).isEqualTo(1);
        assertThat(sender.await(Duration.ofMillis(500))).as("a second wake-up from its own NOTIFY").isFalse();

        // and a NOTIFY from anybody else (another node, forgeflow.enqueue in an application's transaction) still wakes it
        receiver.runsBecameDue();
        assertThat(sender.await(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void aNodeAloneSendsNoNotifyAndWakesItsOwnWaitersInProcess() throws Exception {
        Supplier<Connection> database = ownDatabase(); // no other test's signal listens there
        try (PostgresWorkSignal alone = new PostgresWorkSignal(database);
             Connection bystander = database.get()) {
            listen(bystander); // LISTENs by hand, as no ForgeFlow node does: it is not another node
            drain(alone);
            alone.runsBecameDue();

            assertThat(alone.await(Duration.ofSeconds(5))).as("the node's own waiter, woken in process").isTrue();
            Conditions.awaitTrue(() -> alone.notificationsSkipped() >= 1, Duration.ofSeconds(10),
                    "the sender saw that nobody else listens");
            assertThat(alone.notificationsSent()).as("NOTIFYs of a node alone").isZero();
            assertThat(poll(bystander)).isZero();
        }
    }

    @Test
    void aNodeThatStartsListeningWhileAnotherKeepsAloneIsWokenByItsNextSignal() throws Exception {
        Supplier<Connection> database = ownDatabase();
        // the first node keeps its "nobody else listens" for an hour: only the newcomer's announcement can change it
        try (PostgresWorkSignal first = PostgresWorkSignal.withRecheck(database, Duration.ofHours(1))) {
            drain(first);
            first.runsBecameDue();
            Conditions.awaitTrue(() -> first.notificationsSkipped() >= 1, Duration.ofSeconds(10), "first is alone");

            try (PostgresWorkSignal newcomer = new PostgresWorkSignal(database)) {
                drain(newcomer);
                first.runsBecameDue();

                assertThat(newcomer.await(Duration.ofSeconds(10))).as("the newcomer, woken by the first's signal")
                        .isTrue();
                assertThat(first.notificationsSent()).isPositive();
            }
        }
    }

    @Test
    void aSignalSentWhileNobodyWaitsWakesTheNextAwait() throws Exception {
        drain(receiver);
        sender.runsBecameDue();

        assertThat(receiver.await(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void withoutASignalAwaitTimesOut() throws Exception {
        drain(receiver);

        long start = System.nanoTime();
        assertThat(receiver.await(Duration.ofMillis(300))).isFalse();

        // not before its time (the clock is monotonic: load only makes it later); the ceiling only catches a hang
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("an await of 300 ms without a signal")
                .isBetween(Duration.ofMillis(250), Duration.ofSeconds(30));
    }

    @Test
    void aBurstOfTenThousandCallsCostsFewNotifications() throws Exception {
        try (Connection listener = pg.connectionSupplier().get()) {
            listen(listener);
            AtomicInteger received = new AtomicInteger();

            long start = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                sender.runsBecameDue();
            }
            Duration burst = Duration.ofNanos(System.nanoTime() - start);

            // the burst's notifications have all arrived once the count stops short of what was sent
            Conditions.awaitTrue(() -> {
                received.addAndGet(poll(listener));
                return received.get() >= 1 && received.get() == sender.notificationsSent();
            }, Duration.ofSeconds(5), "every notification sent has arrived");
            assertThat(received.get()).as("notifications for a burst of %s", burst)
                    .isLessThanOrEqualTo(2 + (int) (burst.toMillis() / 2) + 5)
                    .isLessThan(100);
            assertThat(sender.notificationsSent()).isLessThan(100);
        }
    }

    @Test
    void awaitReconnectsWhenTheListenConnectionDrops() throws Exception {
        drain(receiver);
        int terminated = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(pg_terminate_backend(pid)) "
                + "FROM pg_stat_activity WHERE datname = current_database() AND query = :announce "
                + "AND pid <> pg_backend_pid()").bind("announce", "NOTIFY " + PostgresNotifier.LISTENERS_CHANNEL)
                .mapTo(Integer.class).one());
        assertThat(terminated).isEqualTo(2);

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            // after a drop, the first await reports a (possibly missed) signal once it has listened again
            Conditions.awaitTrue(() -> awaitQuietly(receiver, Duration.ofMillis(200)), Duration.ofSeconds(8),
                    "the receiver listens again");
            drain(receiver);
            sender.runsBecameDue();
            assertThat(receiver.await(Duration.ofSeconds(5))).isTrue();
        });
    }

    @Test
    void theSenderReconnectsWhenItsConnectionDrops() throws Exception {
        drain(receiver);
        sender.runsBecameDue();
        assertThat(receiver.await(Duration.ofSeconds(5))).isTrue();
        drain(receiver);
        int terminated = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(pg_terminate_backend(pid)) "
                + "FROM pg_stat_activity WHERE datname = current_database() AND query = :notify "
                + "AND pid <> pg_backend_pid()").bind("notify", "NOTIFY " + PostgresWorkSignal.CHANNEL)
                .mapTo(Integer.class).one());
        assertThat(terminated).isEqualTo(1);

        sender.runsBecameDue();

        assertThat(receiver.await(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void theSendingSessionCommitsWithoutWaitingForTheWalFlushAlsoAfterAReconnect() throws Exception {
        RecordingConnections recording = new RecordingConnections(pg);
        List<Connection> handedOut = recording.handedOut;
        try (PostgresWorkSignal signal = new PostgresWorkSignal(recording)) {
            drain(receiver);
            signal.runsBecameDue();
            assertThat(receiver.await(Duration.ofSeconds(5))).isTrue();

            assertThat(handedOut).hasSize(2); // the LISTEN connection, opened first, and the sending one
            assertThat(RecordingConnections.synchronousCommit(handedOut.get(1))).isEqualTo("off, set by the session");
            assertThat(RecordingConnections.synchronousCommit(handedOut.get(0))).doesNotEndWith("set by the session");

            handedOut.get(1).close();
            drain(receiver);
            signal.runsBecameDue();
            assertThat(receiver.await(Duration.ofSeconds(5))).isTrue();

            assertThat(handedOut).hasSize(3);
            assertThat(RecordingConnections.synchronousCommit(handedOut.get(2))).isEqualTo("off, set by the session");
        }
    }

    @Test
    void awaitIsInterruptible() throws Exception {
        drain(receiver);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                receiver.await(Duration.ofMinutes(1));
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiter.start();

        waiter.interrupt();

        assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }

    /** Consumes signals left over from construction or earlier calls, so each test starts quiet. */
    private static Supplier<Connection> ownDatabase() {
        javax.sql.DataSource database = pg.createEmptyDatabase();
        return () -> {
            try {
                return database.getConnection();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private static void drain(PostgresWorkSignal signal) throws InterruptedException {
        while (signal.await(Duration.ofMillis(50))) {
            // keep draining
        }
    }

    private static boolean awaitQuietly(PostgresWorkSignal signal, Duration timeout) {
        try {
            return signal.await(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void listen(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN " + PostgresWorkSignal.CHANNEL);
        }
    }

    private static int poll(Connection connection) {
        try {
            PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(50);
            return notifications == null ? 0 : notifications.length;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
