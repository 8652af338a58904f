package io.forgeflow.application.schedule;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.forgeflow.application.Scenario;
import io.forgeflow.application.testkit.FakeLeaderElection;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.CronSchedules;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Passes with nothing to fire, with nothing that can be fired, and what a pass says about missed ticks. */
class ScheduleTickerQuietPassTest {
    static final int BATCH = 200; // ScheduleTicker reads due jobs 200 at a time

    final Scenario s = new Scenario(); // 2026-01-15T10:00:00Z
    final FakeLeaderElection election = FakeLeaderElection.leading();
    final List<Integer> missedTicks = Collections.synchronizedList(new ArrayList<>());
    final ListAppender<ILoggingEvent> log = new ListAppender<>();
    final Logger logger = (Logger) LoggerFactory.getLogger(ScheduleTicker.class);

    ScheduleTickerQuietPassTest() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(log);
    }

    ScheduleTicker ticker(CronSchedules cron) {
        return new ScheduleTicker(s.store.jobs(), cron, election, s.signal, Duration.ofSeconds(60), missedTicks::add);
    }

    @Test
    void aPassWithNothingDueFiresNothingAndWakesNoWorker() {
        s.submit(aRecurringDraft("0 * * * *"));
        s.signal.reset();

        assertThat(ticker(s.cron).runOnce()).isZero();

        assertThat(s.signal.count()).isZero();
    }

    @Test
    void aTickFiredOnTimeWakesTheWorkersAndReportsNoMissedTick() {
        Job job = s.submit(aRecurringDraft("0 * * * *"));
        s.signal.reset();
        s.setClock("2026-01-15T11:00:01Z");

        assertThat(ticker(s.cron).runOnce()).isEqualTo(1);

        assertThat(s.runsOf(job.id())).hasSize(1);
        assertThat(s.signal.count()).isEqualTo(1);
        assertThat(missedTicks).isEmpty();
    }

    /** A full batch of due jobs that all fail would be read again and again: the pass must end. */
    @Test
    void aPassEndsWhenAFullBatchOfDueJobsAllFail() {
        for (int i = 0; i < BATCH; i++) {
            s.submit(aRecurringDraft("0 * * * *").named("broken-" + i));
        }
        CronSchedules unreadable = new CronSchedules() {
            @Override
            public void validate(String expression) {
            }

            @Override
            public Optional<Instant> nextAfter(String expression, ZoneId zone, Instant after) {
                throw new IllegalStateException("cannot evaluate " + expression);
            }
        };
        s.setClock("2026-01-15T11:00:05Z");

        int fired = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> ticker(unreadable).runOnce());

        assertThat(fired).isZero();
        assertThat(s.store.allRuns()).isEmpty();
    }

    @Test
    void missedTicksAreReportedAsSkippedOrCoveredByOneRun() {
        Job skip = s.submit(aRecurringDraft("0 * * * *").named("skips").catchingUp("skip"));
        Job once = s.submit(aRecurringDraft("0 * * * *").named("catches-up").catchingUp("once"));
        s.setClock("2026-01-15T13:30:00Z"); // 11:00, 12:00 and 13:00 passed while no scheduler ran

        ticker(s.cron).runOnce();

        assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage)
                .anySatisfy(m -> assertThat(m).startsWith("job " + skip.id() + " (skips): 3 missed tick(s) skipped"))
                .anySatisfy(m -> assertThat(m).startsWith("job " + once.id() + " (catches-up): ")
                        .contains("missed tick(s) covered by one run"));
    }
}
