package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestJobs;
import io.forgeflow.adapter.postgres.testing.TestRuns;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.port.ListedJob;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A page of 500 runs that each hold 1 MiB of payload and 1 MiB of output, or of 500 jobs with 1 MiB payloads, is read
 * in a few MiB; pages stop at the byte budget and their cursors read every item once.
 */
class BoundedListsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), null);
    final PostgresJobRepository jobs = new PostgresJobRepository(pg.jdbi(), null);

    @Test
    void aListOfRunsWithHugePayloadsAndOutputsCarriesOnlyTailsAndSaysWhichWereCut() {
        Run first = pg.insert(TestRuns.aRun());
        for (int i = 1; i < 500; i++) {
            pg.insert(TestRuns.aRun().ofJob(first.jobId()));
        }
        pg.jdbi().useHandle(h -> {
            h.execute("UPDATE runs SET payload = jsonb_build_object('blob', repeat('p', 1048576)), "
                    + "output = repeat('o', 1048575) || 'Z'");
            h.execute("UPDATE runs SET output = 'short' WHERE id = CAST(? AS uuid)", first.id());
        });

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        Page<ListedRun> page = runs.listForDisplay(null, null, 500, null, ListBudget.DEFAULT);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        System.out.println("listForDisplay of 500 runs of 1 MiB payload and output allocated " + allocated / 1024
                + " KiB");

        assertThat(page.items()).hasSize(500);
        assertThat(allocated).as("bytes allocated to read the page").isLessThan(64L * 1024 * 1024);
        for (ListedRun listed : page.items()) {
            assertThat(listed.run().payload()).as("no payload in a list item").isEmpty();
            if (listed.run().id().equals(first.id())) {
                assertThat(listed.run().output()).isEqualTo("short");
                assertThat(listed.outputTruncated()).isFalse();
            } else {
                assertThat(listed.run().output()).hasSize(ListedRun.OUTPUT_TAIL_CHARS).endsWith("oZ");
                assertThat(listed.outputTruncated()).isTrue();
            }
        }
        assertThat(runs.find(first.id()).orElseThrow().payload()).as("the run's own route has it whole")
                .containsKey("blob");
    }

    @Test
    void pagesOfTheBoundedListFollowEachOtherAsThoseOfTheFullList() {
        Run first = pg.insert(TestRuns.aRun());
        for (int i = 1; i < 5; i++) {
            pg.insert(TestRuns.aRun().ofJob(first.jobId()));
        }
        Page<ListedRun> one = runs.listForDisplay(first.jobId(), null, 3, null, ListBudget.DEFAULT);
        Page<Run> full = runs.list(first.jobId(), null, 3, null);

        assertThat(one.items()).extracting(l -> l.run().id()).containsExactlyElementsOf(
                full.items().stream().map(Run::id).toList());
        assertThat(one.nextCursor()).isEqualTo(full.nextCursor()).isNotNull();
        Page<ListedRun> two = runs.listForDisplay(first.jobId(), null, 3, one.nextCursor(), ListBudget.DEFAULT);
        assertThat(two.items()).hasSize(2);
        assertThat(two.nextCursor()).isNull();
        assertThat(runs.listForDisplay("not-an-id", null, 3, null, ListBudget.DEFAULT).items()).isEmpty();
    }

    @Test
    void aListOfJobsWithHugePayloadsCarriesOnlyPayloadsUpTo64KiBAndSaysWhichWereLeftOut() {
        List<Job> inserted = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            inserted.add(pg.insert(TestJobs.aJob()));
        }
        String atLimit = inserted.get(0).id();
        String overLimit = inserted.get(1).id();
        String handlerJob = inserted.get(2).id();
        String escapes = inserted.get(3).id();
        String numbers = inserted.get(4).id();
        pg.jdbi().useHandle(h -> {
            h.execute("UPDATE jobs SET payload = jsonb_build_object('blob', repeat('p', 1048576))");
            // {"blob": "<n p>"} is n + 12 bytes of JSON text
            h.execute("UPDATE jobs SET payload = jsonb_build_object('blob', repeat('p', 65524)) WHERE id = CAST(? AS uuid)",
                    atLimit);
            h.execute("UPDATE jobs SET payload = jsonb_build_object('blob', repeat('p', 65525)) WHERE id = CAST(? AS uuid)",
                    overLimit);
            h.execute("UPDATE jobs SET executor = 'java', payload = jsonb_build_object('handler', 'send-receipt', "
                    + "'args', repeat('a', 1048576)) WHERE id = CAST(? AS uuid)", handlerJob);
            // 40,000 bytes stored, but each quote is written as two characters: over 64 KiB of JSON text
            h.execute("UPDATE jobs SET payload = jsonb_build_object('blob', repeat('\"', 40000)) WHERE id = CAST(? AS uuid)",
                    escapes);
            // 20,000 ones: about 240 KB stored, 60 KB of JSON text
            h.execute("UPDATE jobs SET payload = jsonb_build_object('ones', (SELECT jsonb_agg(1) FROM generate_series(1, "
                    + "20000))) WHERE id = CAST(? AS uuid)", numbers);
        });

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        Page<ListedJob> page = jobs.listForDisplay(null, 500, null, ListBudget.DEFAULT);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        System.out.println("listForDisplay of 500 jobs of 1 MiB payload allocated " + allocated / 1024 + " KiB");

        assertThat(page.items()).hasSize(500);
        assertThat(page.nextCursor()).isNull();
        assertThat(allocated).as("bytes allocated to read the page").isLessThan(64L * 1024 * 1024);
        for (ListedJob listed : page.items()) {
            String id = listed.job().id();
            Map<String, Object> payload = listed.job().spec().payload();
            if (id.equals(atLimit)) {
                assertThat(listed.payloadTruncated()).as("a payload of exactly 64 KiB is listed").isFalse();
                assertThat((String) payload.get("blob")).hasSize(65524);
            } else if (id.equals(numbers)) {
                assertThat(listed.payloadTruncated()).as("a payload larger stored than written is measured as written")
                        .isFalse();
                assertThat((List<?>) payload.get("ones")).hasSize(20000);
            } else if (id.equals(handlerJob)) {
                assertThat(listed.payloadTruncated()).isTrue();
                assertThat(payload).as("a java job's stand-in keeps its handler").isEqualTo(
                        Map.of("handler", "send-receipt"));
            } else {
                assertThat(listed.payloadTruncated()).as("job %s", id).isTrue();
                assertThat(payload).as("job %s", id).isEmpty();
            }
        }
        assertThat(jobs.find(overLimit).orElseThrow().spec().payload().get("blob")).as("the job's own route has it whole")
                .asString().hasSize(65525);
    }

    @Test
    void aPageOfJobsStopsAtTheByteBudgetAndItsCursorsReadEveryJobOnce() {
        for (int i = 0; i < 100; i++) {
            pg.insert(TestJobs.aJob());
        }
        // 60,012 bytes of payload, 1 KiB of allowance and a few bytes of texts per item: 17 fit in 1 MiB
        pg.jdbi().useHandle(h -> h.execute("UPDATE jobs SET payload = jsonb_build_object('blob', repeat('p', 60000))"));
        ListBudget budget = new ListBudget(1024 * 1024);

        List<String> seen = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        String cursor = null;
        do {
            Page<ListedJob> page = jobs.listForDisplay(null, 500, cursor, budget);
            sizes.add(page.items().size());
            page.items().forEach(listed -> {
                assertThat(listed.payloadTruncated()).isFalse();
                seen.add(listed.job().id());
            });
            cursor = page.nextCursor();
        } while (cursor != null);

        assertThat(sizes).as("page sizes").allSatisfy(n -> assertThat(n).isBetween(1, 17)).hasSize(6)
                .startsWith(17);
        assertThat(seen).doesNotHaveDuplicates().containsExactlyElementsOf(
                jobs.list(null, 500, null).items().stream().map(Job::id).toList());
    }

    @Test
    void aJobLargerThanTheBudgetIsStillListedOnePerPage() {
        for (int i = 0; i < 3; i++) {
            pg.insert(TestJobs.aJob());
        }
        // exactly 64 KiB of payload, plus the allowance: over the smallest budget
        pg.jdbi().useHandle(h -> h.execute("UPDATE jobs SET payload = jsonb_build_object('blob', repeat('p', 65524))"));

        Page<ListedJob> one = jobs.listForDisplay(null, 10, null, new ListBudget(ListBudget.MIN_BYTES));
        Page<ListedJob> two = jobs.listForDisplay(null, 10, one.nextCursor(), new ListBudget(ListBudget.MIN_BYTES));
        Page<ListedJob> three = jobs.listForDisplay(null, 10, two.nextCursor(), new ListBudget(ListBudget.MIN_BYTES));

        assertThat(List.of(one, two, three)).allSatisfy(p -> assertThat(p.items()).hasSize(1));
        assertThat(three.nextCursor()).isNull();
    }

    @Test
    void aPageOfRunsStopsAtTheByteBudgetAndItsCursorsReadEveryRunOnce() {
        Run first = pg.insert(TestRuns.aRun());
        for (int i = 1; i < 50; i++) {
            pg.insert(TestRuns.aRun().ofJob(first.jobId()));
        }
        // a tail of 4,096 three-byte characters: 12 KiB, plus 512 bytes of allowance; 5 fit in 64 KiB
        pg.jdbi().useHandle(h -> h.execute("UPDATE runs SET output = repeat('\u20ac', 100000)"));
        ListBudget budget = new ListBudget(ListBudget.MIN_BYTES);

        List<String> seen = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        String cursor = null;
        do {
            Page<ListedRun> page = runs.listForDisplay(first.jobId(), null, 500, cursor, budget);
            sizes.add(page.items().size());
            page.items().forEach(listed -> {
                assertThat(listed.outputTruncated()).isTrue();
                assertThat(listed.run().output()).hasSize(ListedRun.OUTPUT_TAIL_CHARS);
                seen.add(listed.run().id());
            });
            cursor = page.nextCursor();
        } while (cursor != null);

        assertThat(sizes).as("page sizes").containsExactly(5, 5, 5, 5, 5, 5, 5, 5, 5, 5);
        assertThat(seen).doesNotHaveDuplicates().containsExactlyElementsOf(
                runs.list(first.jobId(), null, 500, null).items().stream().map(Run::id).toList());
    }
}
