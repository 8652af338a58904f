package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.adapter.postgres.testing.TestRuns;
import io.forgeflow.domain.port.ListBudget;
import io.forgeflow.domain.port.ListedRun;
import io.forgeflow.domain.port.Page;
import io.forgeflow.domain.run.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** A page of 500 runs that each hold 1 MiB of payload and 1 MiB of output is read in a few MiB. */
class BoundedListsIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final PostgresRunRepository runs = new PostgresRunRepository(pg.jdbi(), null, null);

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
}
