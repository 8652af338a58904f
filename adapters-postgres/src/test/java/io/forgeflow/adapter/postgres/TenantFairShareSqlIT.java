package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.queue.QueueSelection;
import io.forgeflow.domain.queue.RateLimit;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.tenant.TenantSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.forgeflow.adapter.postgres.testing.TestJobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fair share between tenants in the claim (issue 42): weighted shares while tenants have due runs together, the
 * limits of a tenant, and a single tenant claimed as before.
 */
class TenantFairShareSqlIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Duration LEASE = Duration.ofSeconds(30);
    static final Set<String> NOOP = Set.of("noop");

    final TestClock clock = TestClock.at("2025-01-01T00:00:00Z");
    final Instant now = clock.instant();
    final PostgresRunQueue queue = new PostgresRunQueue(pg.jdbi(), clock);
    final PostgresTenantRepository tenants = new PostgresTenantRepository(pg.jdbi(), clock);

    /** {@code n} due runs of a new job of {@code tenant}, the first due {@code ago} before now. */
    void seed(String tenant, int n, Duration ago) {
        Job job = pg.insert(aJob());
        pg.jdbi().useHandle(h -> h.execute("UPDATE jobs SET tenant = ? WHERE id = CAST(? AS uuid)", tenant,
                job.id()));
        List<Run> batch = new ArrayList<>();
        Instant due = now.minus(ago);
        for (int i = 0; i < n; i++) {
            batch.add(Run.pending(Ids.newId(due.plusMillis(i)), job.id(), 3, 5, due.plusMillis(i), "noop", Map.of(),
                    60, now));
        }
        pg.insertAll(batch); // a run's tenant is its job's
    }

    List<Run> claim(String worker, int limit) {
        return queue.claim(worker, NOOP, QueueSelection.ALL, limit, LEASE);
    }

    /** Claims 4 at a time until {@code small}'s runs are all started; its share of the starts until then. */
    double shareOf(String small, int smallRuns) {
        int starts = 0;
        int smallStarts = 0;
        while (smallStarts < smallRuns) {
            List<Run> claimed = claim("w1", 4);
            assertThat(claimed).as("a claim while two tenants have due runs").isNotEmpty();
            for (Run r : claimed) {
                if (smallStarts < smallRuns) {
                    starts++;
                    smallStarts += r.tenant().equals(small) ? 1 : 0;
                }
            }
        }
        return (double) smallStarts / starts;
    }

    @Test
    void aTenantThatComesLaterIsServedBesideTheFloodNotAfterIt() {
        seed("acme", 2_000, Duration.ofMinutes(10));
        assertThat(claim("w1", 4)).extracting(Run::tenant).containsOnly("acme"); // acme alone, for a while
        seed("beta", 100, Duration.ofSeconds(1));

        assertThat(shareOf("beta", 100)).isBetween(0.45, 0.55);
    }

    @Test
    void weightsSetTheShares() {
        tenants.configure("beta", true, false, false, new TenantSettings(3, null, null));
        seed("acme", 2_000, Duration.ofMinutes(10));
        seed("beta", 300, Duration.ofSeconds(1));

        assertThat(shareOf("beta", 300)).isBetween(0.70, 0.80);
    }

    @Test
    void aTenantsPastAloneBanksNoCredit() {
        seed("acme", 50, Duration.ofMinutes(10));
        seed("beta", 2_000, Duration.ofMinutes(5));
        while (claim("w1", 4).stream().anyMatch(r -> r.tenant().equals("acme"))) {
            // both served until acme has nothing left
        }
        for (int i = 0; i < 100; i++) {
            assertThat(claim("w1", 4)).extracting(Run::tenant).containsOnly("beta"); // beta alone builds up a pass
        }
        seed("acme", 100, Duration.ofSeconds(1));

        assertThat(shareOf("acme", 100)).isBetween(0.45, 0.62);
    }

    @Test
    void aTenantsMaxRunningHoldsAcrossRacingClaimersAndLeavesTheRestToOthers() throws Exception {
        tenants.configure("acme", false, true, false, new TenantSettings(1, 3, null));
        seed("acme", 200, Duration.ofMinutes(10));
        seed("beta", 200, Duration.ofMinutes(5));
        int claimers = 6;
        CyclicBarrier start = new CyclicBarrier(claimers);
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        List<Future<List<Run>>> results = new ArrayList<>();
        for (int i = 0; i < claimers; i++) {
            String worker = "w" + i;
            results.add(pool.submit(() -> {
                start.await();
                List<Run> all = new ArrayList<>();
                for (int k = 0; k < 5; k++) {
                    all.addAll(claim(worker, 4));
                }
                return all;
            }));
        }
        List<Run> claimed = new ArrayList<>();
        for (Future<List<Run>> f : results) {
            claimed.addAll(f.get());
        }
        pool.shutdown();

        assertThat(claimed.stream().filter(r -> r.tenant().equals("acme"))).hasSize(3);
        assertThat(claimed.stream().filter(r -> r.tenant().equals("beta")).count()).isGreaterThan(50);
        assertThat(new HashSet<>(claimed.stream().map(Run::id).toList())).hasSize(claimed.size());
        assertThat(tenants.get("acme").running()).isEqualTo(3);
    }

    @Test
    void aTenantsRateLimitCountsItsStartsInTheWindow() {
        tenants.configure("acme", false, false, true, new TenantSettings(1, null, new RateLimit(5, 60)));
        seed("acme", 50, Duration.ofMinutes(10));

        int started = 0;
        for (int i = 0; i < 10; i++) {
            started += claim("w1", 4).size();
        }
        assertThat(started).isEqualTo(5);
        assertThat(tenants.get("acme").startsInWindow()).isEqualTo(5);

        clock.advance(Duration.ofSeconds(61));
        assertThat(claim("w1", 4)).hasSize(4);
    }

    @Test
    void oneTenantOutsideDefaultIsClaimedInOrderAndWritesNoShares() {
        seed("acme", 30, Duration.ofMinutes(1));

        List<Run> claimed = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            claimed.addAll(claim("w1", 4));
        }
        assertThat(claimed).hasSize(30);
        assertThat(claimed).extracting(Run::scheduledFor).isSorted();
        long shares = pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM tenant_shares").mapTo(Long.class)
                .one());
        assertThat(shares).isZero();
    }
}
