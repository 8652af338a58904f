package io.forgeflow.application.run;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Attempt;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.run.RunStatus;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueryRunsTest {
    final Scenario s = new Scenario();
    final QueryRuns query = new QueryRuns(s.store.runs());

    @Test
    void getReturnsTheRunWithItsAttemptsOldestFirst() {
        Run run = s.onlyRunOf(s.submit(aDraft()).id());
        s.claimAndEnd(run, RunStatus.PENDING);
        s.claimAndEnd(run, RunStatus.SUCCEEDED);

        QueryRuns.RunDetail detail = query.get(run.id());

        assertThat(detail.run().status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(detail.attempts()).extracting(Attempt::attempt, Attempt::outcome)
                .containsExactly(tuple(1, AttemptOutcome.FAILED),
                        tuple(2, AttemptOutcome.SUCCEEDED));
    }

    @Test
    void aRunThatNeverStartedHasNoAttempts() {
        Run run = s.onlyRunOf(s.submit(aDraft()).id());

        assertThat(query.get(run.id()).attempts()).isEmpty();
    }

    @Test
    void getOfAnUnknownRunIsNotFound() {
        assertThatThrownBy(() -> query.get(Ids.newId(s.clock.instant())))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("run");
    }

    @Test
    void statsCountEveryStatusIncludingEmptyOnes() {
        Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
        Run toSucceed = s.triggerJob().trigger(job.id());
        s.claimAndEnd(toSucceed, RunStatus.SUCCEEDED);
        s.triggerJob().trigger(job.id());
        s.triggerJob().trigger(job.id());

        assertThat(query.stats()).isEqualTo(Map.of(RunStatus.WAITING, 0L, RunStatus.PENDING, 2L, RunStatus.RUNNING, 0L,
                RunStatus.SUCCEEDED, 1L, RunStatus.DEAD, 0L, RunStatus.CANCELLED, 0L));
    }

    @Nested
    class Listing {
        @Test
        void listsNewestFirstAndPagesThroughEveryRunOnce() {
            Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
            List<String> triggered = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                triggered.add(0, s.triggerJob().trigger(job.id()).id());
            }

            List<String> seen = new ArrayList<>();
            String cursor = null;
            int pages = 0;
            do {
                Page<Run> page = query.list(job.id(), null, 2, cursor);
                page.items().forEach(r -> seen.add(r.id()));
                cursor = page.nextCursor();
                pages++;
            } while (cursor != null);

            assertThat(seen).containsExactlyElementsOf(triggered);
            assertThat(pages).isEqualTo(3);
        }

        @Test
        void filtersByJobAndStatusTheDeadLetterQueueIsStatusDead() {
            Job one = s.submit(aRecurringDraft("0 0 1 1 *"));
            Job other = s.submit(aRecurringDraft("0 0 1 1 *"));
            Run dead = s.claimAndEnd(s.triggerJob().trigger(one.id()), RunStatus.DEAD);
            Run pending = s.triggerJob().trigger(one.id());
            Run elsewhere = s.triggerJob().trigger(other.id());

            assertThat(query.list(null, RunStatus.DEAD, 50, null).items()).extracting(Run::id).containsExactly(dead.id());
            assertThat(query.list(one.id(), null, 50, null).items()).extracting(Run::id)
                    .containsExactly(pending.id(), dead.id());
            assertThat(query.list(one.id(), RunStatus.PENDING, 50, null).items()).extracting(Run::id)
                    .containsExactly(pending.id());
            assertThat(query.list(other.id(), null, 50, null).items()).extracting(Run::id)
                    .containsExactly(elsewhere.id());
        }

        @ParameterizedTest(name = "limit {0}")
        @ValueSource(ints = {0, -5, 501, 10_000})
        void aLimitOutsideOneToFiveHundredIsAnInvalidQueryNamingLimit(int limit) {
            assertThatThrownBy(() -> query.list(null, null, limit, null))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> {
                        assertThat(e.field()).isEqualTo("limit");
                        assertThat(e.getMessage()).contains("500");
                    });
        }

        @Test
        void aJobListingsCursorIsForeignHere() {
            s.submit(aDraft());
            s.submit(aDraft());
            String jobCursor = s.store.jobs().list(null, 1, null).nextCursor();
            assertThat(jobCursor).isNotNull();

            assertThatThrownBy(() -> query.list(null, null, 10, jobCursor))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }

        @Test
        void theDisplayListHasTheSameRunsAndPagesAsTheFullOneAndCutsNothingInMemory() {
            Job job = s.submit(aRecurringDraft("0 0 1 1 *"));
            for (int i = 0; i < 3; i++) {
                s.triggerJob().trigger(job.id());
            }
            Page<Run> full = query.list(job.id(), null, 2, null);

            Page<ListedRun> shown = query.listForDisplay(job.id(), null, 2, null);

            assertThat(shown.items()).extracting(ListedRun::run).containsExactlyElementsOf(full.items());
            assertThat(shown.items()).noneMatch(ListedRun::outputTruncated);
            assertThat(shown.nextCursor()).isEqualTo(full.nextCursor()).isNotNull();
            assertThat(query.listForDisplay(job.id(), null, 2, shown.nextCursor()).items()).hasSize(1);
        }

        @Test
        void theDisplayListChecksItsLimitAndCursorAsTheFullOne() {
            assertThatThrownBy(() -> query.listForDisplay(null, null, 501, null))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("limit"));
            assertThatThrownBy(() -> query.listForDisplay(null, null, 10, "%%%"))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }

        @Test
        void garbageIsNotACursor() {
            assertThatThrownBy(() -> query.list(null, null, 10, "%%%"))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }
    }
}
