package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.trace.RunTrace;
import io.forgeflow.domain.trace.TraceContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Trace context (issue 31, migration 0014) as the submission paths store it with jobs and their runs. */
class TraceContextSqlIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final TraceContext CALLER = TraceContext.parse("00-" + TRACE + "-00f067aa0ba902b7-01", "vendor=1");

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), clock);
    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), clock);

    @BeforeEach
    void executors() {
        new PostgresExecutorCatalog(pg.jdbi()).record(List.of("shell", "http", "noop"), "test-node");
    }

    @Test
    void aOneOffJobKeepsItsSubmissionsContextAndItsRunASpanOfItsOwnInTheSameTrace() {
        Job job = aJob().build().withTrace(CALLER);
        Run first = Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell", job.spec().payload(), 300, now);

        jobs.create(job, first);

        assertThat(jobs.find(job.id()).orElseThrow().trace()).isEqualTo(CALLER);
        RunTrace stored = runs.find(first.id()).orElseThrow().trace();
        assertThat(stored.origin()).isEqualTo(CALLER);
        assertThat(stored.context().traceId()).isEqualTo(TRACE);
        assertThat(stored.context().spanId()).isNotEqualTo(CALLER.spanId());
        assertThat(stored.context().tracestate()).isEqualTo("vendor=1");
        assertThat(stored.queue()).isEqualTo("default");
    }

    @Test
    void aRequeuedRunGetsANewSpanInTheSameTraceUnderTheLifeThatEnded() {
        Job job = aJob().build().withTrace(CALLER);
        Run first = Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell", job.spec().payload(), 300, now);
        jobs.create(job, first);
        RunTrace ended = runs.cancelPending(first.id(), "no").flatMap(r -> runs.find(r.id())).orElseThrow().trace();

        RunTrace requeued = runs.requeue(first.id(), 1).orElseThrow().trace();

        assertThat(requeued.origin()).isEqualTo(ended.context());
        assertThat(requeued.context().traceId()).isEqualTo(TRACE);
        assertThat(requeued.context().spanId()).isNotIn(ended.context().spanId(), CALLER.spanId());
        assertThat(requeued.context().sampled()).isTrue();
        assertThat(runs.find(first.id()).orElseThrow().trace()).isEqualTo(requeued);
        // an untraced run stays untraced
        Job plain = aJob().build();
        Run untraced = Run.pending(Ids.newId(now), plain.id(), 3, 5, now, "shell", plain.spec().payload(), 300, now);
        jobs.create(plain, untraced);
        runs.cancelPending(untraced.id(), "no");
        assertThat(runs.requeue(untraced.id(), 1).orElseThrow().trace()).isNull();
    }

    @Test
    void aJobWithoutContextHasRunsWithout() {
        Job job = aJob().build();
        Run first = Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell", job.spec().payload(), 300, now);
        jobs.create(job, first);
        assertThat(jobs.find(job.id()).orElseThrow().trace()).isNull();
        assertThat(runs.find(first.id()).orElseThrow().trace()).isNull();
    }

    @Test
    void eachCronTickStartsANewTraceLinkedToTheSubmission() {
        Job job = aJob().recurring("* * * * *", now).build().withTrace(CALLER);
        jobs.create(job, null);

        Run tick = Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell", job.spec().payload(), 300, now);
        assertThat(jobs.fireTick(job.id(), now, now.plusSeconds(60), tick)).isTrue();

        RunTrace stored = runs.find(tick.id()).orElseThrow().trace();
        assertThat(stored.origin()).isEqualTo(CALLER);
        assertThat(stored.context().traceId()).isNotEqualTo(TRACE);
        assertThat(TraceContext.isValid(stored.context().traceparent())).isTrue();
    }

    @Test
    void aTriggerWithItsOwnContextContinuesThatTrace() {
        Job job = aJob().recurring("* * * * *", now.plusSeconds(3600)).build().withTrace(CALLER);
        jobs.create(job, null);
        TraceContext trigger = TraceContext.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", null);

        Run run = runs.insert(Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell", job.spec().payload(), 300, now)
                .withTrace(RunTrace.under(trigger)));
        Run untraced = runs.insert(Run.pending(Ids.newId(now), job.id(), 3, 5, now, "shell", job.spec().payload(), 300,
                now));

        assertThat(run.trace().origin()).isEqualTo(trigger);
        assertThat(run.trace().context().traceId()).isEqualTo(trigger.traceId());
        // a trigger without context on a recurring job: like a tick, a new trace linked to the submission
        assertThat(untraced.trace().origin()).isEqualTo(CALLER);
        assertThat(untraced.trace().context().traceId()).isNotIn(TRACE, trigger.traceId());
    }

    @Test
    void enqueueTakesATraceparentAndRefusesAMalformedOne() throws Exception {
        String runId;
        try (Connection app = appConnection(); Statement st = app.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM forgeflow.enqueue(name => 'traced', executor => 'shell', "
                     + "payload => '{\"command\": \"true\"}', traceparent => '00-" + TRACE + "-00f067aa0ba902b7-01', "
                     + "tracestate => 'vendor=1')")) {
            assertThat(rs.next()).isTrue();
            runId = rs.getString("run_id");
            app.commit();
        }
        RunTrace stored = runs.find(runId).orElseThrow().trace();
        assertThat(stored.origin()).isEqualTo(CALLER);
        assertThat(stored.context().traceId()).isEqualTo(TRACE);

        try (Connection app = appConnection(); Statement st = app.createStatement()) {
            assertThatThrownBy(() -> st.executeQuery("SELECT * FROM forgeflow.enqueue(name => 'bad', executor => "
                    + "'shell', payload => '{\"command\": \"true\"}', traceparent => 'not-a-traceparent')"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22023");
                        assertThat(e.getMessage()).contains("traceparent must be a W3C traceparent");
                    });
        }
        // the earlier signature (13 positional arguments) still works
        try (Connection app = appConnection(); Statement st = app.createStatement();
             ResultSet rs = st.executeQuery("SELECT * FROM forgeflow.enqueue('plain', 'shell', '{\"command\": "
                     + "\"true\"}', NULL, 5, 3, 300, 'default', NULL, NULL, NULL, NULL, NULL)")) {
            assertThat(rs.next()).isTrue();
            String plain = rs.getString("run_id");
            app.commit();
            assertThat(runs.find(plain).orElseThrow().trace()).isNull();
        }
    }

    static Connection appConnection() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", pg.user());
        properties.setProperty("password", pg.password());
        Connection connection = DriverManager.getConnection(pg.jdbcUrl(), properties);
        connection.setAutoCommit(false);
        return connection;
    }
}
