package io.forgeflow.test;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.client.jdbc.Enqueued;
import io.forgeflow.embedded.JobHandler;
import io.forgeflow.spring.ForgeFlow;
import io.forgeflow.spring.ForgeFlowHandlers;
import io.forgeflow.spring.ForgeFlowProperties;
import io.forgeflow.spring.HandlerJob;
import io.forgeflow.spring.JdbcForgeFlow;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@link ForgeFlow} of a {@link ForgeFlowTest}: records every job the code under test enqueues (at the commit of
 * its transaction: a rollback records nothing) and handles it as the test's {@link ForgeFlowTest.Mode} says.
 * Thread-safe.
 */
public class TestForgeFlow implements ForgeFlow {
    private final ForgeFlowTest.Mode mode;
    private final ForgeFlowHandlers handlers;
    private final DataSource dataSource;
    private final String schema;
    private final ForgeFlow database;
    private final ObjectMapper mapper = new ObjectMapper().findAndRegisterModules()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private final List<EnqueuedJob> enqueued = new ArrayList<>();
    private final Deque<EnqueuedJob> waiting = new ArrayDeque<>();

    public TestForgeFlow(ForgeFlowTest.Mode mode, ForgeFlowHandlers handlers, DataSource dataSource,
                         ForgeFlowProperties properties) {
        this.mode = Objects.requireNonNull(mode, "mode");
        this.handlers = handlers;
        this.dataSource = dataSource;
        this.schema = properties.getSchema();
        this.database = mode == ForgeFlowTest.Mode.DATABASE ? new JdbcForgeFlow(dataSource, schema, mapper) : null;
    }

    public ForgeFlowTest.Mode mode() {
        return mode;
    }

    @Override
    public Enqueued submit(HandlerJob job) {
        JsonNode args = JdbcForgeFlow.argsOf(job, mapper);
        Enqueued result = database != null ? database.submit(job)
                : new Enqueued(UUID.randomUUID().toString(), UUID.randomUUID().toString(), true);
        EnqueuedJob recorded = new EnqueuedJob(job.handler(), args == null ? mapper.createObjectNode() : args, job,
                result.jobId(), result.runId());
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    committed(recorded);
                }
            });
        } else {
            committed(recorded);
        }
        return result;
    }

    private void committed(EnqueuedJob job) {
        synchronized (this) {
            enqueued.add(job);
            if (mode == ForgeFlowTest.Mode.MANUAL) {
                waiting.add(job);
            }
        }
        if (mode == ForgeFlowTest.Mode.INLINE) {
            run(job);
        }
    }

    /** Runs {@code job}'s handler in this thread; what the handler throws is thrown here. */
    private void run(EnqueuedJob job) {
        JobHandler handler = handlers.handlers().get(job.handler());
        if (handler == null) {
            throw new AssertionError("a job was enqueued for handler '" + job.handler() + "', which no "
                    + "@ForgeFlowHandler method of the application declares; declared: " + handlers.handlers().keySet());
        }
        try {
            handler.handle(new TestJobContext(job, mapper));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("handler '" + job.handler() + "' failed: " + e, e);
        }
    }

    /** Every job enqueued (and committed) since the test began, oldest first. */
    public synchronized List<EnqueuedJob> enqueued() {
        return List.copyOf(enqueued);
    }

    /** The jobs enqueued for {@code handler}. */
    public synchronized List<EnqueuedJob> enqueued(String handler) {
        return enqueued.stream().filter(j -> j.handler().equals(handler)).toList();
    }

    /**
     * Asserts that a job for {@code handler} was enqueued with {@code args} (a record, map or {@code JsonNode},
     * compared as JSON; null: any args), and returns it.
     */
    public EnqueuedJob assertEnqueued(String handler, Object args) {
        JsonNode expected = args == null ? null : mapper.valueToTree(args);
        List<EnqueuedJob> all = enqueued();
        for (EnqueuedJob job : all) {
            if (job.handler().equals(handler) && (expected == null || expected.equals(job.args()))) {
                return job;
            }
        }
        throw new AssertionError("expected a job for handler '" + handler + "'"
                + (expected == null ? "" : " with args " + expected) + ", but " + describe(all));
    }

    /** Asserts that no job for {@code handler} was enqueued. */
    public void assertNotEnqueued(String handler) {
        List<EnqueuedJob> found = enqueued(handler);
        if (!found.isEmpty()) {
            throw new AssertionError("expected no job for handler '" + handler + "', but " + describe(found));
        }
    }

    private static String describe(List<EnqueuedJob> jobs) {
        return jobs.isEmpty() ? "none was enqueued" : "enqueued were: " + jobs.stream()
                .map(j -> j.handler() + " " + j.args()).collect(Collectors.joining(", "));
    }

    /**
     * Runs what is due. MANUAL: runs the recorded jobs not yet run, and those they enqueue, in this thread, and
     * returns how many ran. INLINE: nothing to do (jobs ran at commit), 0. DATABASE: waits (up to 30 s) until
     * ForgeFlow's tables hold no run that is due or running, and returns 0.
     */
    public int drain() {
        if (mode == ForgeFlowTest.Mode.DATABASE) {
            awaitQuiet(Duration.ofSeconds(30));
            return 0;
        }
        int ran = 0;
        while (true) {
            EnqueuedJob next;
            synchronized (this) {
                next = waiting.poll();
            }
            if (next == null) {
                return ran;
            }
            run(next);
            ran++;
        }
    }

    /** Forgets every recorded job (the extension calls it before each test). */
    public synchronized void clear() {
        enqueued.clear();
        waiting.clear();
    }

    private void awaitQuiet(Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        String sql = "SELECT count(*) FROM " + schema + ".runs WHERE status = 'running' "
                + "OR (status = 'pending' AND scheduled_for <= now())";
        while (true) {
            long busy;
            try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql);
                 ResultSet rs = s.executeQuery()) {
                rs.next();
                busy = rs.getLong(1);
            } catch (SQLException e) {
                throw new IllegalStateException("drain(): cannot read ForgeFlow's runs: " + e.getMessage(), e);
            }
            if (busy == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("drain(): " + busy + " runs still due or running after " + max);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(25); // polling the runs with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("drain() was interrupted");
            }
        }
    }
}
