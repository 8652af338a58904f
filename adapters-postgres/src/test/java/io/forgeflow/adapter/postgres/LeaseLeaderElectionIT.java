package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 46: leadership by a lease row with a term, fenced, for nodes without a session of their own. */
class LeaseLeaderElectionIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final AtomicLong clockA = new AtomicLong();
    final AtomicLong clockB = new AtomicLong();

    LeaseLeaderElection node(String holder, Duration ttl, AtomicLong clock) {
        return new LeaseLeaderElection(pg.dataSource(), "test", holder, ttl, clock::get);
    }

    long term() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT term FROM leader_lease WHERE name = 'test'")
                .mapTo(Long.class).one());
    }

    String holder() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT holder FROM leader_lease WHERE name = 'test'")
                .mapTo(String.class).one());
    }

    void expire() {
        pg.jdbi().useHandle(h -> h.execute("UPDATE leader_lease SET expires_at = now() - interval '1 second'"));
    }

    @Test
    void oneLeadsAndRenewsInItsTermWhileTheOtherWaits() {
        LeaseLeaderElection a = node("a", Duration.ofSeconds(30), clockA);
        LeaseLeaderElection b = node("b", Duration.ofSeconds(30), clockB);

        assertThat(a.campaign()).isTrue();
        assertThat(b.campaign()).isFalse();
        assertThat(a.campaign()).as("renewal").isTrue();
        assertThat(b.campaign()).isFalse();

        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        assertThat(a.term()).isEqualTo(1);
        assertThat(term()).as("renewals keep the term").isEqualTo(1);
        assertThat(holder()).isEqualTo("a");
    }

    @Test
    void afterExpiryAStandbyTakesOverWithTheNextTermAndTheStalledOldLeaderIsFenced() {
        LeaseLeaderElection a = node("a", Duration.ofSeconds(30), clockA);
        LeaseLeaderElection b = node("b", Duration.ofSeconds(30), clockB);
        assertThat(a.campaign()).isTrue();

        // a stalls past its lease (its own clock moves on 30 s); the database lets b take over
        clockA.addAndGet(Duration.ofSeconds(30).toNanos());
        expire();
        assertThat(b.campaign()).isTrue();

        assertThat(b.term()).isEqualTo(2);
        assertThat(term()).isEqualTo(2);
        assertThat(holder()).isEqualTo("b");
        assertThat(a.isLeader()).as("the stalled leader's duties see it no longer leads, without a round trip")
                .isFalse();
        assertThat(a.campaign()).as("its next campaign finds term 2 held by b").isFalse();
        assertThat(a.term()).isZero();
        assertThat(holder()).isEqualTo("b");
        assertThat(term()).isEqualTo(2);
    }

    @Test
    void theFenceFallsBeforeTheDatabaseCouldHandTheLeaseOver() {
        LeaseLeaderElection a = node("a", Duration.ofSeconds(10), clockA);
        assertThat(a.campaign()).isTrue();

        clockA.addAndGet(Duration.ofSeconds(8).toNanos());
        assertThat(a.isLeader()).isTrue();
        clockA.addAndGet(Duration.ofSeconds(1).toNanos()); // 9 s: a tenth of the lease before its end
        assertThat(a.isLeader()).isFalse();

        assertThat(a.campaign()).as("still its own in the database: renewed in the same term").isTrue();
        assertThat(a.isLeader()).isTrue();
        assertThat(term()).isEqualTo(1);
    }

    @Test
    void aLeaderWhoseLeaseExpiredUnclaimedLeadsAgainInANewTerm() {
        LeaseLeaderElection a = node("a", Duration.ofSeconds(30), clockA);
        assertThat(a.campaign()).isTrue();
        expire();

        assertThat(a.campaign()).isTrue();

        assertThat(a.term()).isEqualTo(2);
    }

    @Test
    void aResigningLeaderHandsOverAtOnce() {
        LeaseLeaderElection a = node("a", Duration.ofSeconds(30), clockA);
        LeaseLeaderElection b = node("b", Duration.ofSeconds(30), clockB);
        assertThat(a.campaign()).isTrue();

        a.close();

        assertThat(a.isLeader()).isFalse();
        assertThat(b.campaign()).isTrue();
        assertThat(b.term()).isEqualTo(2);
        assertThat(a.campaign()).isFalse();
    }

    @Test
    void aRestartedNodeWithTheSameIdWaitsForItsOldLeaseToExpire() {
        LeaseLeaderElection before = node("a", Duration.ofSeconds(30), clockA);
        assertThat(before.campaign()).isTrue();

        LeaseLeaderElection after = node("a", Duration.ofSeconds(30), clockB);
        assertThat(after.campaign()).as("it does not know the term: no renewal").isFalse();
        expire();
        assertThat(after.campaign()).isTrue();
        assertThat(after.term()).isEqualTo(2);
        assertThat(before.campaign()).as("the old incarnation's term 1 is over").isFalse();
    }
}
