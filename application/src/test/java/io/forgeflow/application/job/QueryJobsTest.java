package io.forgeflow.application.job;

import io.forgeflow.application.Scenario;
import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.error.NotFoundException;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.Page;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static io.forgeflow.application.testkit.JobDrafts.aDraft;
import static io.forgeflow.application.testkit.JobDrafts.aRecurringDraft;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueryJobsTest {
    final Scenario s = new Scenario();
    final QueryJobs query = new QueryJobs(s.store.jobs());

    @Test
    void getReturnsTheStoredJob() {
        Job job = s.submit(aDraft());

        assertThat(query.get(job.id())).isEqualTo(job);
    }

    @Test
    void getOfAnUnknownOrMalformedIdIsNotFound() {
        assertThatThrownBy(() -> query.get(Ids.newId(s.clock.instant())))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("job");
        assertThatThrownBy(() -> query.get("x")).isInstanceOf(NotFoundException.class);
    }

    @Nested
    class Listing {
        @Test
        void listsNewestFirstAndPagesThroughEveryJobOnce() {
            List<String> submitted = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                submitted.add(0, s.submit(aDraft().named("job-" + i)).id());
            }

            Page<Job> first = query.list(null, 2, null);
            Page<Job> second = query.list(null, 2, first.nextCursor());
            Page<Job> last = query.list(null, 2, second.nextCursor());

            List<String> seen = new ArrayList<>();
            for (Page<Job> page : List.of(first, second, last)) {
                page.items().forEach(j -> seen.add(j.id()));
            }
            assertThat(seen).containsExactlyElementsOf(submitted);
            assertThat(first.nextCursor()).isNotNull();
            assertThat(last.items()).hasSize(1);
            assertThat(last.nextCursor()).isNull();
        }

        @Test
        void theDisplayListHasTheSameJobsAndPagesAsTheFullOneAndLeavesOutNothingInMemory() {
            for (int i = 0; i < 3; i++) {
                s.submit(aDraft().named("job-" + i));
            }
            Page<Job> full = query.list(null, 2, null);

            Page<ListedJob> shown = query.listForDisplay(null, 2, null);

            assertThat(shown.items()).extracting(ListedJob::job).containsExactlyElementsOf(full.items());
            assertThat(shown.items()).noneMatch(ListedJob::payloadTruncated);
            assertThat(shown.nextCursor()).isEqualTo(full.nextCursor()).isNotNull();
            assertThat(query.listForDisplay(null, 2, shown.nextCursor()).items()).hasSize(1);
            assertThatThrownBy(() -> query.listForDisplay(null, 501, null))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("limit"));
            assertThatThrownBy(() -> query.listForDisplay(null, 10, "%%%"))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }

        @Test
        void filtersByStatus() {
            Job active = s.submit(aRecurringDraft("0 * * * *"));
            Job paused = s.submit(aRecurringDraft("0 * * * *"));
            s.pauseJob().pause(paused.id());

            assertThat(query.list(JobStatus.PAUSED, 50, null).items()).extracting(Job::id).containsExactly(paused.id());
            assertThat(query.list(JobStatus.ACTIVE, 50, null).items()).extracting(Job::id).containsExactly(active.id());
            assertThat(query.list(JobStatus.CANCELLED, 50, null).items()).isEmpty();
        }

        @ParameterizedTest(name = "limit {0}")
        @ValueSource(ints = {0, -1, 501, Integer.MAX_VALUE})
        void aLimitOutsideOneToFiveHundredIsAnInvalidQueryNamingLimit(int limit) {
            assertThatThrownBy(() -> query.list(null, limit, null))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("limit"));
        }

        @ParameterizedTest(name = "limit {0}")
        @ValueSource(ints = {1, 500})
        void theLimitsThemselvesAreAccepted(int limit) {
            s.submit(aDraft());

            assertThat(query.list(null, limit, null).items()).hasSize(1);
        }

        @Test
        void aCursorThisServerDidNotIssueIsAnInvalidQueryNamingCursor() {
            assertThatThrownBy(() -> query.list(null, 10, "not a cursor at all"))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }

        @Test
        void aRunListingsCursorIsForeignHere() {
            Job job = s.submit(aDraft());
            s.triggerJob().trigger(job.id());
            String runCursor = s.store.runs().list(null, null, 1, null).nextCursor();
            assertThat(runCursor).isNotNull();

            assertThatThrownBy(() -> query.list(null, 10, runCursor))
                    .isInstanceOfSatisfying(InvalidQueryException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }
    }
}
