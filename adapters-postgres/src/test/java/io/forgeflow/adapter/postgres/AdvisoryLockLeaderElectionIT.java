package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

class AdvisoryLockLeaderElectionIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    final AdvisoryLockLeaderElection first = new AdvisoryLockLeaderElection(pg.connectionSupplier());
    final AdvisoryLockLeaderElection second = new AdvisoryLockLeaderElection(pg.connectionSupplier());

    @AfterEach
    void closeBoth() {
        first.close();
        second.close();
    }

    @Test
    void ofTwoCampaignersOnlyOneLeads() {
        assertThat(first.campaign()).isTrue();
        assertThat(second.campaign()).isFalse();
        assertThat(first.campaign()).as("the leader confirms its lock").isTrue();
        assertThat(second.campaign()).isFalse();
        assertThat(first.isLeader()).isTrue();
        assertThat(second.isLeader()).isFalse();
        assertThat(lockHolders()).hasSize(1);
    }

    @Test
    void aResigningLeaderLetsAStandbyTakeOverAtOnce() {
        first.campaign();

        first.resign();

        assertThat(first.isLeader()).isFalse();
        assertThat(second.campaign()).isTrue();
        assertThat(first.campaign()).isFalse();
    }

    @Test
    void aLeaderWhoseBackendIsTerminatedStepsDownAndTheStandbyTakesOver() {
        assertThat(first.campaign()).isTrue();
        int leaderPid = lockHolders().get(0);

        assertThat(terminate(leaderPid)).isTrue();

        assertThat(first.campaign()).as("the old leader's next campaign").isFalse();
        assertThat(first.isLeader()).isFalse();
        Conditions.awaitTrue(second::campaign, Duration.ofSeconds(10), "the standby takes over");
        assertThat(second.isLeader()).isTrue();
        assertThat(first.campaign()).as("the old leader reconnects as a standby").isFalse();
    }

    @Test
    void aCampaignWithoutADatabaseReturnsFalse() {
        Supplier<Connection> unreachable = () -> {
            throw new IllegalStateException("connection refused");
        };
        AdvisoryLockLeaderElection election = new AdvisoryLockLeaderElection(unreachable);

        assertThat(election.campaign()).isFalse();
        assertThat(election.isLeader()).isFalse();
        election.close();
    }

    @Test
    void closingTheLeaderReleasesTheLock() {
        first.campaign();

        first.close();

        assertThat(lockHolders()).isEmpty();
        assertThat(second.campaign()).isTrue();
    }

    private static List<Integer> lockHolders() {
        // advisory locks are per database: other test databases on the same server may hold the same key
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT pid FROM pg_locks WHERE locktype = 'advisory' "
                        + "AND granted AND objid::bigint = :objid AND classid::bigint = :classid "
                        + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
                .bind("objid", AdvisoryLockLeaderElection.LOCK_KEY & 0xFFFF_FFFFL)
                .bind("classid", AdvisoryLockLeaderElection.LOCK_KEY >>> 32)
                .mapTo(Integer.class).list());
    }

    /** Terminates the backend and waits until it is gone: pg_terminate_backend only sends the signal. */
    private static boolean terminate(int pid) {
        boolean signalled = pg.jdbi().withHandle(h -> h.createQuery("SELECT pg_terminate_backend(:pid)").bind("pid", pid)
                .mapTo(Boolean.class).one());
        Conditions.awaitTrue(() -> pg.jdbi().withHandle(h -> h.createQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = :pid").bind("pid", pid).mapTo(Long.class).one()) == 0,
                Duration.ofSeconds(10), "the terminated backend exits");
        return signalled;
    }

}
