package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.ConflictException;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.CatchUp;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.CronSchedules;
import io.forgeflow.domain.port.JobRepository.JobCreation;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class SubmitJobTest {
    final Scenario s = new Scenario();
    final SubmitJob submit = s.submitJob();

    @Nested
    class OneOffJobs {
        @Test
        void aRunNowJobGetsOnePendingRunDueNowAndWakesTheWorkers() {
            JobCreation creation = submit.submit(aDraft().build());

            assertThat(creation.created()).isTrue();
            Job job = creation.job();
            assertThat(job.status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(job.nextRunAt()).isEqualTo(s.clock.instant());
            assertThat(job.createdAt()).isEqualTo(s.clock.instant());
            assertThat(s.job(job.id())).isEqualTo(job);
            Run run = s.onlyRunOf(job.id());
            assertThat(run.status()).isEqualTo(RunStatus.PENDING);
            assertThat(run.scheduledFor()).isEqualTo(s.clock.instant());
            assertThat(run.attempt()).isZero();
            assertThat(s.signal.count()).isEqualTo(1);
        }

        @Test
        void theRunCarriesWhatTheJobSaysToRunAndHowHardToTry() {
            Job job = s.submit(aDraft().withExecutor("http").withPayload(Map.of("url", "https://example.com/hook"))
                    .withPriority(2).withMaxAttempts(7).withTimeoutSeconds(42));

            Run run = s.onlyRunOf(job.id());

            assertThat(run.executor()).isEqualTo("http");
            assertThat(run.payload()).isEqualTo(Map.of("url", "https://example.com/hook"));
            assertThat(run.priority()).isEqualTo(2);
            assertThat(run.maxAttempts()).isEqualTo(7);
            assertThat(run.timeoutSeconds()).isEqualTo(42);
            assertThat(run.jobId()).isEqualTo(job.id());
        }

        @Test
        void theDefaultsOfTheApiApplyToFieldsLeftOut() {
            Job job = s.submit(aDraft());

            assertThat(job.spec().priority()).isEqualTo(5);
            assertThat(job.spec().maxAttempts()).isEqualTo(3);
            assertThat(job.spec().timeoutSeconds()).isEqualTo(300);
            assertThat(job.spec().catchUp()).isEqualTo(CatchUp.SKIP);
            assertThat(job.spec().timezone()).isEqualTo("UTC");
        }

        @Test
        void aRunAtInTheFutureGetsARunDueThenAndLetsTheWorkersSleep() {
            Instant later = s.clock.instant().plus(Duration.ofHours(3));

            Job job = s.submit(aDraft().runAt(later));

            assertThat(job.nextRunAt()).isEqualTo(later);
            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(later);
            assertThat(s.signal.count()).isZero();
        }

        @Test
        void aRunAtThatHasPassedIsDueAtOnceAndWakesTheWorkers() {
            Instant earlier = s.clock.instant().minus(Duration.ofMinutes(5));

            Job job = s.submit(aDraft().runAt(earlier));

            assertThat(s.onlyRunOf(job.id()).scheduledFor()).isEqualTo(earlier);
            assertThat(s.signal.count()).isEqualTo(1);
        }
    }

    @Nested
    class RecurringJobs {
        @Test
        void aCronJobGetsNoRunYetAndItsNextRunAtIsTheNextTickInItsZone() {
            // 10:00 UTC on 2026-01-15 is 11:00 in Berlin (+01:00); the next 09:00 Berlin is the 16th at 08:00 UTC
            Job job = s.submit(aRecurringDraft("0 9 * * *").inZone("Europe/Berlin"));

            assertThat(job.status()).isEqualTo(JobStatus.ACTIVE);
            assertThat(job.nextRunAt()).isEqualTo(Instant.parse("2026-01-16T08:00:00Z"));
            assertThat(s.runsOf(job.id())).isEmpty();
            assertThat(s.signal.count()).isZero();
        }

        @Test
        void theSameExpressionInUtcTicksAtItsOwnNineOClock() {
            Job job = s.submit(aRecurringDraft("0 9 * * *"));

            assertThat(job.nextRunAt()).isEqualTo(Instant.parse("2026-01-16T09:00:00Z"));
        }

        @Test
        void aTickAtTheVeryMomentOfSubmissionIsNotTheNextTick() {
            // now is 10:00:00 exactly: the next tick is strictly after now
            Job job = s.submit(aRecurringDraft("0 * * * *"));

            assertThat(job.nextRunAt()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
        }

        @Test
        void macrosAndSecondsFieldsAreAccepted() {
            assertThat(s.submit(aRecurringDraft("@hourly")).nextRunAt()).isEqualTo(Instant.parse("2026-01-15T11:00:00Z"));
            assertThat(s.submit(aRecurringDraft("30 * * * * *")).nextRunAt())
                    .isEqualTo(Instant.parse("2026-01-15T10:00:30Z"));
        }
    }

    @Nested
    class Validation {
        @Test
        void anUnknownExecutorIsRefusedNamingTheExecutorFieldAndTheKnownOnes() {
            assertThatThrownBy(() -> submit.submit(aDraft().withExecutor("ftp").build()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo("executor");
                        assertThat(e.getMessage()).contains("ftp").contains("http, shell");
                    });
            assertNothingStored();
        }

        @Test
        void aPayloadTheExecutorRejectsIsRefusedNamingThePayloadField() {
            assertThatThrownBy(() -> submit.submit(aDraft().withPayload(Map.of("bad", 1)).build()))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("payload.bad"));
            assertNothingStored();
        }

        @Test
        void aMalformedCronExpressionIsRefusedNamingCronExpr() {
            assertThatThrownBy(() -> submit.submit(aRecurringDraft("every monday please").build()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("cron_expr"));
            assertNothingStored();
        }

        @Test
        void aCronExpressionThatNeverFiresIsRefusedNamingCronExpr() {
            assertThatThrownBy(() -> submit.submit(aRecurringDraft("0 0 30 2 *").build()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo("cron_expr");
                        assertThat(e.getMessage()).contains("never fires");
                    });
            assertNothingStored();
        }

        @Test
        void aCronExpressionWithNoTickLeftAfterNowIsRefusedNamingCronExpr() {
            CronSchedules exhausted = new CronSchedules() {
                @Override
                public void validate(String expression) {
                }

                @Override
                public Optional<Instant> nextAfter(String expression, ZoneId zone, Instant after) {
                    return Optional.empty();
                }
            };
            SubmitJob withExhaustedCron = new SubmitJob(s.store.jobs(), s.executors, exhausted, s.signal, s.clock);

            assertThatThrownBy(() -> withExhaustedCron.submit(aRecurringDraft("0 0 1 1 *").build()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo("cron_expr");
                        assertThat(e.getMessage()).contains("never fires again");
                    });
            assertNothingStored();
        }

        @Test
        void theDraftsOwnRulesApplyFirst() {
            assertThatThrownBy(() -> submit.submit(aDraft().withPriority(0).build()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("priority"));
            assertThatThrownBy(() -> submit.submit(aDraft().withCron("* * * * *").runAt(s.clock.instant()).build()))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("run_at"));
            assertNothingStored();
        }

        void assertNothingStored() {
            assertThat(s.store.allJobs()).isEmpty();
            assertThat(s.store.allRuns()).isEmpty();
            assertThat(s.signal.count()).isZero();
        }
    }

    @Nested
    class Idempotency {
        @Test
        void theSameKeyWithTheSameBodyReturnsTheExistingJobAndCreatesNothing() {
            JobCreation first = submit.submit(aDraft().withIdempotencyKey("order-42").build());
            s.advance(Duration.ofMinutes(3));

            JobCreation again = submit.submit(aDraft().withIdempotencyKey("order-42").build());

            assertThat(again.created()).isFalse();
            assertThat(again.job()).isEqualTo(first.job());
            assertThat(s.store.allJobs()).hasSize(1);
            assertThat(s.store.allRuns()).hasSize(1);
            assertThat(s.signal.count()).as("a replay wakes nobody").isEqualTo(1);
        }

        @Test
        void payloadNumbersThatDifferOnlyInFormAndKeysInAnotherOrderAreTheSameBody() {
            Map<String, Object> asSent = new LinkedHashMap<>();
            asSent.put("timeout_ms", 100);
            asSent.put("retries", List.of(1, 2.5));
            Map<String, Object> asStored = new LinkedHashMap<>();
            asStored.put("retries", List.of(new BigDecimal("1.0"), 2.5d));
            asStored.put("timeout_ms", 100.0d);
            JobCreation first = submit.submit(aDraft().withPayload(asSent).withIdempotencyKey("k").build());

            JobCreation again = submit.submit(aDraft().withPayload(asStored).withIdempotencyKey("k").build());
            JobCreation inExponentForm = submit.submit(aDraft()
                    .withPayload(Map.of("timeout_ms", new BigDecimal("1E+2"), "retries", List.of(1L, 2.5f)))
                    .withIdempotencyKey("k").build());

            assertThat(again.created()).isFalse();
            assertThat(again.job().id()).isEqualTo(first.job().id());
            assertThat(inExponentForm.job().id()).isEqualTo(first.job().id());
            assertThat(s.store.allJobs()).hasSize(1);
        }

        @Test
        void aReplayOfARecurringJobMatchesAfterItsScheduleMoved() {
            JobCreation first = submit.submit(aRecurringDraft("*/5 * * * *").withIdempotencyKey("k").build());
            s.advance(Duration.ofHours(2));

            JobCreation again = submit.submit(aRecurringDraft("*/5 * * * *").withIdempotencyKey("k").build());

            assertThat(again.created()).isFalse();
            assertThat(again.job().id()).isEqualTo(first.job().id());
        }

        @Test
        void theSameKeyWithADifferentBodyIsAConflictNamingTheKeyAndStoresNothingMore() {
            Job first = s.submit(aDraft().withIdempotencyKey("order-42"));

            assertThatThrownBy(() -> submit.submit(aDraft().withIdempotencyKey("order-42").withPriority(1).build()))
                    .isInstanceOfSatisfying(ConflictException.class, e -> {
                        assertThat(e.field()).isEqualTo("idempotency_key");
                        assertThat(e.getMessage()).contains("order-42").contains(first.id());
                    });
            assertThatThrownBy(() -> submit.submit(aDraft().withIdempotencyKey("order-42")
                    .withPayload(Map.of("command", "false")).build()))
                    .isInstanceOf(ConflictException.class);
            assertThat(s.store.allJobs()).containsExactly(first);
            assertThat(s.store.allRuns()).hasSize(1);
        }

        @Test
        void differentKeysMakeDifferentJobsAndNoKeyAlwaysMakesANewJob() {
            s.submit(aDraft().withIdempotencyKey("a"));
            s.submit(aDraft().withIdempotencyKey("b"));
            s.submit(aDraft());
            s.submit(aDraft());

            assertThat(s.store.allJobs()).hasSize(4);
        }

        @Test
        void twentyConcurrentSubmissionsWithOneKeyCreateExactlyOneJob() {
            int threads = 20;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                    CyclicBarrier start = new CyclicBarrier(threads);
                    List<Future<JobCreation>> results = new ArrayList<>();
                    for (int i = 0; i < threads; i++) {
                        results.add(pool.submit(() -> {
                            start.await();
                            return submit.submit(aDraft().withIdempotencyKey("only-once").build());
                        }));
                    }
                    List<JobCreation> creations = new ArrayList<>();
                    for (Future<JobCreation> f : results) {
                        creations.add(f.get());
                    }
                    assertThat(creations).filteredOn(JobCreation::created).hasSize(1);
                    assertThat(creations).extracting(c -> c.job().id()).containsOnly(creations.get(0).job().id());
                });
            } finally {
                pool.shutdownNow();
            }
            assertThat(s.store.allJobs()).hasSize(1);
            assertThat(s.store.allRuns()).hasSize(1);
            assertThat(s.signal.count()).isEqualTo(1);
        }
    }
}
