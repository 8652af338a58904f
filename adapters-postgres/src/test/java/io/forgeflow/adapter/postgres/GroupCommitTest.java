package io.forgeflow.adapter.postgres;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Group commit with a writer that records what it was given; real threads, no database. */
@Timeout(30)
class GroupCommitTest {
    final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        callers.shutdownNow();
    }

    /** Upper-cases items; "bad" fails alone and makes a batch roll back; can hold a write until released. */
    static final class RecordingWriter implements GroupCommit.Writer<String, String> {
        final List<List<String>> together = Collections.synchronizedList(new ArrayList<>());
        final List<String> alone = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger mostInFlight = new AtomicInteger();
        volatile CountDownLatch hold = new CountDownLatch(0);
        volatile CountDownLatch held = new CountDownLatch(1);
        volatile RuntimeException commitFailure;
        volatile RuntimeException aloneFailure;
        volatile boolean databaseAway;

        @Override
        public List<String> writeTogether(List<String> items) {
            enter();
            try {
                together.add(List.copyOf(items));
                if (databaseAway) {
                    throw new GroupCommit.NothingWritten("the batch was rolled back", connectionRefused());
                }
                if (items.contains("bad")) {
                    throw new GroupCommit.NothingWritten("a statement failed", new IllegalArgumentException("bad"));
                }
                if (commitFailure != null) {
                    throw commitFailure;
                }
                return items.stream().map(i -> i.toUpperCase(Locale.ROOT)).toList();
            } finally {
                inFlight.decrementAndGet();
            }
        }

        @Override
        public String writeAlone(String item) {
            enter();
            try {
                alone.add(item);
                if (aloneFailure != null) {
                    throw aloneFailure;
                }
                if (item.equals("bad")) {
                    throw new IllegalArgumentException("bad is refused");
                }
                return item.toUpperCase(Locale.ROOT);
            } finally {
                inFlight.decrementAndGet();
            }
        }

        private void enter() {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            held.countDown();
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    final RecordingWriter writer = new RecordingWriter();

    /** What pgjdbc throws when nothing listens on the database's port. */
    static java.sql.SQLException connectionRefused() {
        return new java.sql.SQLException("Connection to 127.0.0.1:5432 refused", "08001",
                new java.net.ConnectException("Connection refused"));
    }

    CompletableFuture<String> writeAsync(GroupCommit<String, String> commit, String item) {
        return CompletableFuture.supplyAsync(() -> commit.write(item), callers);
    }

    /** The first write is held inside the writer; the others queue behind it. Returns the first's future. */
    CompletableFuture<String> holdFirstWrite(GroupCommit<String, String> commit, String item) throws Exception {
        writer.hold = new CountDownLatch(1);
        writer.held = new CountDownLatch(1);
        CompletableFuture<String> first = writeAsync(commit, item);
        assertThat(writer.held.await(10, TimeUnit.SECONDS)).as("the first write reached the writer").isTrue();
        return first;
    }

    /** Writes the items from threads of their own and returns once all of them wait for the next batch. */
    List<CompletableFuture<String>> queue(GroupCommit<String, String> commit, String... items)
            throws InterruptedException {
        List<CompletableFuture<String>> queued = new ArrayList<>();
        for (String item : items) {
            queued.add(writeAsync(commit, item));
        }
        await(() -> commit.waiting() == items.length);
        return queued;
    }

    static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited for a condition").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    @Test
    void aLoneWriteIsWrittenAloneAtOnce() {
        GroupCommit<String, String> commit = new GroupCommit<>(2, 64, writer);

        assertThat(commit.write("a")).isEqualTo("A");

        assertThat(writer.alone).containsExactly("a");
        assertThat(writer.together).isEmpty();
        assertThat(commit.largestBatch()).isZero();
    }

    @Test
    void writesArrivingWhileABatchIsWrittenGoTogetherInTheNextOneEachWithItsOwnOutcome() throws Exception {
        GroupCommit<String, String> commit = new GroupCommit<>(1, 64, writer);
        CompletableFuture<String> first = holdFirstWrite(commit, "a");
        List<CompletableFuture<String>> queued = queue(commit, "b", "c", "d", "e", "f");

        writer.hold.countDown();

        assertThat(first.get()).isEqualTo("A");
        assertThat(queued.stream().map(CompletableFuture::join)).containsExactly("B", "C", "D", "E", "F");
        assertThat(writer.alone).containsExactly("a");
        assertThat(writer.together).hasSize(1);
        assertThat(writer.together.get(0)).containsExactlyInAnyOrder("b", "c", "d", "e", "f");
        assertThat(commit.batchesTogether()).isEqualTo(1);
        assertThat(commit.writtenTogether()).isEqualTo(5);
        assertThat(commit.largestBatch()).isEqualTo(5);
    }

    @Test
    void aBatchTakesAtMostTheBatchSizeAndTheRestFollowInLaterBatches() throws Exception {
        GroupCommit<String, String> commit = new GroupCommit<>(1, 3, writer);
        CompletableFuture<String> first = holdFirstWrite(commit, "a");
        List<CompletableFuture<String>> queued = queue(commit, "b", "c", "d", "e", "f", "g", "h");

        writer.hold.countDown();

        assertThat(first.get()).isEqualTo("A");
        assertThat(queued.stream().map(CompletableFuture::join)).containsExactly("B", "C", "D", "E", "F", "G", "H");
        assertThat(writer.together).allSatisfy(batch -> assertThat(batch).hasSizeLessThanOrEqualTo(3));
        List<String> written = new ArrayList<>(writer.alone);
        writer.together.forEach(written::addAll);
        assertThat(written).containsExactlyInAnyOrder("a", "b", "c", "d", "e", "f", "g", "h");
        assertThat(commit.largestBatch()).isEqualTo(3);
    }

    @Test
    void noMoreThanMaxBatchesAreWrittenAtTheSameTime() throws Exception {
        GroupCommit<String, String> commit = new GroupCommit<>(2, 4, writer);
        List<CompletableFuture<String>> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            all.add(writeAsync(commit, "w" + i));
        }

        for (int i = 0; i < all.size(); i++) {
            assertThat(all.get(i).get()).isEqualTo("W" + i);
        }
        assertThat(writer.mostInFlight.get()).isBetween(1, 2);
    }

    @Test
    void aBatchRolledBackBeforeItsCommitIsRetriedAloneSoOnlyTheBadWriteFails() throws Exception {
        GroupCommit<String, String> commit = new GroupCommit<>(1, 64, writer);
        CompletableFuture<String> first = holdFirstWrite(commit, "a");
        List<CompletableFuture<String>> queued = queue(commit, "good", "bad", "fine");
        CompletableFuture<String> good = queued.get(0);
        CompletableFuture<String> bad = queued.get(1);
        CompletableFuture<String> fine = queued.get(2);

        writer.hold.countDown();

        assertThat(first.get()).isEqualTo("A");
        assertThat(good.get()).isEqualTo("GOOD");
        assertThat(fine.get()).isEqualTo("FINE");
        assertThatThrownBy(bad::join).hasRootCauseInstanceOf(IllegalArgumentException.class)
                .hasRootCauseMessage("bad is refused");
        assertThat(writer.alone).containsExactlyInAnyOrder("a", "good", "bad", "fine");
        assertThat(commit.batchesTogether()).as("a rolled-back batch did not commit together").isZero();
    }

    @Test
    void aBatchRolledBackBecauseTheDatabaseIsAwayFailsEveryWriteAsUnavailableAndRetriesNoneAlone() throws Exception {
        GroupCommit<String, String> commit = new GroupCommit<>(1, 64, writer);
        CompletableFuture<String> first = holdFirstWrite(commit, "a");
        List<CompletableFuture<String>> queued = queue(commit, "b", "c", "d");
        writer.databaseAway = true;

        writer.hold.countDown();

        assertThat(first.get()).isEqualTo("A");
        for (CompletableFuture<String> f : queued) {
            assertThatThrownBy(f::join).hasCauseInstanceOf(io.forgeflow.domain.error.UnavailableException.class)
                    .hasRootCauseInstanceOf(java.net.ConnectException.class);
        }
        assertThat(writer.alone).as("no write retried alone against an absent database").containsExactly("a");
    }

    @Test
    void aLoneWriteThatFindsTheDatabaseAwayFailsAsUnavailable() {
        GroupCommit<String, String> commit = new GroupCommit<>(1, 64, writer);
        writer.aloneFailure = new JdbcStatements.StatementFailedException("JobSql/insertWithRun.sql",
                connectionRefused());

        assertThatThrownBy(() -> commit.write("a")).isInstanceOf(io.forgeflow.domain.error.UnavailableException.class)
                .hasCauseInstanceOf(JdbcStatements.StatementFailedException.class);
    }

    @Test
    void aCommitThatMayHaveTakenEffectFailsEveryWriteOfItsBatchAndRetriesNone() throws Exception {
        GroupCommit<String, String> commit = new GroupCommit<>(1, 64, writer);
        CompletableFuture<String> first = holdFirstWrite(commit, "a");
        List<CompletableFuture<String>> queued = queue(commit, "b", "c");
        writer.commitFailure = new IllegalStateException("connection lost during commit");

        writer.hold.countDown();

        assertThat(first.get()).isEqualTo("A");
        for (CompletableFuture<String> f : queued) {
            assertThatThrownBy(f::join).hasRootCauseInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage("connection lost during commit");
        }
        assertThat(writer.alone).as("nothing retried").containsExactly("a");
    }

    @Test
    void aWriterThatLosesOutcomesFailsTheBatchInsteadOfLeavingCallersWaiting() throws Exception {
        GroupCommit.Writer<String, String> lossy = new GroupCommit.Writer<>() {
            @Override
            public List<String> writeTogether(List<String> items) {
                return List.of("only one");
            }

            @Override
            public String writeAlone(String item) {
                writer.writeAlone(item);
                return item;
            }
        };
        GroupCommit<String, String> commit = new GroupCommit<>(1, 64, lossy);
        CompletableFuture<String> first = holdFirstWrite(commit, "a");
        List<CompletableFuture<String>> queued = queue(commit, "b", "c");

        writer.hold.countDown();

        assertThat(first.get()).isEqualTo("a");
        for (CompletableFuture<String> f : queued) {
            assertThatThrownBy(f::join).hasRootCauseInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage("a batch of 2 writes returned 1 outcomes");
        }
    }

    @Test
    void anInterruptedCallerStillGetsItsOutcomeAndKeepsItsInterrupt() throws Exception {
        GroupCommit<String, String> commit = new GroupCommit<>(1, 64, writer);
        CompletableFuture<String> first = holdFirstWrite(commit, "a");
        CompletableFuture<Boolean> interruptKept = new CompletableFuture<>();
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            outcome.complete(commit.write("b"));
            interruptKept.complete(Thread.currentThread().isInterrupted());
        });
        caller.start();
        await(() -> commit.waiting() == 1);

        caller.interrupt();
        writer.hold.countDown();

        assertThat(first.get()).isEqualTo("A");
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo("B");
        assertThat(interruptKept.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void batchesAndTheirSizeMustBeAtLeastOne() {
        assertThatThrownBy(() -> new GroupCommit<>(0, 1, writer)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBatches and maxBatchSize must be at least 1, were 0 and 1");
        assertThatThrownBy(() -> new GroupCommit<>(1, 0, writer)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBatches and maxBatchSize must be at least 1, were 1 and 0");
    }
}
