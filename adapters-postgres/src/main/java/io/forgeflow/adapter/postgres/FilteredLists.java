package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.JobFilter;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.port.RunFilter;
import io.forgeflow.domain.run.Run;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

import java.util.List;
import java.util.Map;

/**
 * The lists of {@code GET /api/jobs} and {@code GET /api/runs} (JobSql/listMatching.sql, RunSql/listMatching.sql):
 * newest first, keyset paginated, every filter optional. One constant statement each, whose absent filters read as
 * {@code :x IS NULL OR ...}; the transaction plans it for its values ({@code plan_cache_mode = force_custom_plan}), so
 * the planner folds the absent filters away and each filter gets the index that serves it (migration 0013): a page
 * reads rows in proportion to the page, or to the rows that match when they are few, never the table
 * (FilteredListPlansIT). Times are bound as timestamptz: a cast from text to timestamptz is not constant (it depends on
 * the session's time zone), so {@code CAST(:text AS timestamptz) IS NULL} would not fold and no index would serve. A
 * generic plan, which the JDBC driver's prepared statements reach after a few executions, would keep every filter's
 * condition and could only walk the primary key. The lists for a response (listForDisplayMatching.sql) take the same
 * filters and add issue 23's bounds: payloads and outputs cut, the page held to the byte budget by a window sum.
 */
final class FilteredLists {
    private FilteredLists() {
    }

    static Page<Job> jobs(Jdbi jdbi, JobFilter filter, int limit, String cursor) {
        String after = Cursors.decode(cursor);
        List<Job> rows = jdbi.inTransaction(h -> {
            customPlans(h);
            return h.attach(JobSql.class).listMatching(filter.status() == null ? null : filter.status().wireName(),
                    filter.queue(), labels(filter.labels()),
                    filter.namePrefix() == null ? null : likePrefix(filter.namePrefix()), filter.tenant(), after,
                    limit + 1);
        });
        return Cursors.page(rows, limit, Job::id);
    }

    static Page<Run> runs(Jdbi jdbi, RunFilter filter, int limit, String cursor) {
        String after = Cursors.decode(cursor);
        if (filter.jobId() != null && !Ids.isWellFormed(filter.jobId())) {
            return new Page<>(List.of(), null);
        }
        List<Run> rows = jdbi.inTransaction(h -> {
            customPlans(h);
            return h.attach(RunSql.class).listMatching(filter.jobId(), status(filter), filter.queue(),
                    labels(filter.labels()), filter.scheduledAfter(), filter.scheduledBefore(),
                    filter.finishedAfter(), filter.tenant(), after, limit + 1);
        });
        return Cursors.page(rows, limit, Run::id);
    }

    /**
     * The jobs of {@link #jobs} for a response (JobSql/listForDisplayMatching.sql): payloads over
     * {@link ListedJob#PAYLOAD_LIMIT_BYTES} left out, the page held to {@code budget} by the query.
     */
    static Page<ListedJob> jobsForDisplay(Jdbi jdbi, JobFilter filter, int limit, String cursor, ListBudget budget) {
        String after = Cursors.decode(cursor);
        List<Rows.BudgetedJob> rows = jdbi.inTransaction(h -> {
            customPlans(h);
            return h.attach(JobSql.class).listForDisplayMatching(
                    filter.status() == null ? null : filter.status().wireName(), filter.queue(),
                    labels(filter.labels()), filter.namePrefix() == null ? null : likePrefix(filter.namePrefix()),
                    filter.tenant(), after, limit + 1, ListedJob.PAYLOAD_LIMIT_BYTES, ListedJob.ITEM_OVERHEAD_BYTES, budget.bytes());
        });
        return Cursors.budgetedPage(rows, limit, Rows.BudgetedJob::candidates, Rows.BudgetedJob::listed,
                listed -> listed.job().id());
    }

    /**
     * The runs of {@link #runs} for a response (RunSql/listForDisplayMatching.sql): output tails, no payloads, the
     * page held to {@code budget} by the query.
     */
    static Page<ListedRun> runsForDisplay(Jdbi jdbi, RunFilter filter, int limit, String cursor, ListBudget budget) {
        String after = Cursors.decode(cursor);
        if (filter.jobId() != null && !Ids.isWellFormed(filter.jobId())) {
            return new Page<>(List.of(), null);
        }
        List<Rows.BudgetedRun> rows = jdbi.inTransaction(h -> {
            customPlans(h);
            return h.attach(RunSql.class).listForDisplayMatching(filter.jobId(), status(filter), filter.queue(),
                    labels(filter.labels()), filter.scheduledAfter(), filter.scheduledBefore(),
                    filter.finishedAfter(), filter.tenant(), after, limit + 1, ListedRun.OUTPUT_TAIL_CHARS,
                    ListedRun.ITEM_OVERHEAD_BYTES, budget.bytes());
        });
        return Cursors.budgetedPage(rows, limit, Rows.BudgetedRun::candidates, Rows.BudgetedRun::listed,
                listed -> listed.run().id());
    }

    /** A LIKE pattern matching strings that start with {@code prefix} ({@code \} is LIKE's escape). */
    static String likePrefix(String prefix) {
        return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }

    /** Plans this transaction's statements for their values, never a generic plan that keeps every filter. */
    private static void customPlans(Handle h) {
        h.execute("SET LOCAL plan_cache_mode = force_custom_plan");
    }

    private static String status(RunFilter filter) {
        return filter.status() == null ? null : filter.status().wireName();
    }

    /** Every label must match: a JSON object for containment ({@code @>}); null when none. */
    private static String labels(Map<String, String> labels) {
        return labels.isEmpty() ? null : PayloadJson.write(labels);
    }
}
