package io.forgeflow.adapter.postgres.testing;

import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A class that counts PostgreSQL's per-database statistics gets a database of its own: scans that other test classes'
 * nodes and pools make on the JVM's shared database do not show in it (FilteredListPlansIT failed in CI at 7,369 rows
 * read against a bound of 6,000 while the shared database's counters took every connection's reads).
 */
class PostgresExtensionAloneIT {
    @RegisterExtension
    static final PostgresExtension alone = PostgresExtension.migratedAlone();
    static final PostgresExtension shared = PostgresExtension.migrated();

    @Test
    void scansOfTheSharedDatabaseDoNotCountInTheOwnOne() {
        assertThat(alone.databaseName()).isNotEqualTo(shared.databaseName()).startsWith(shared.databaseName() + "_");
        long aloneBefore = jobsScanned(alone);
        long sharedBefore = jobsScanned(shared);

        try (Handle h = shared.jdbi().open()) {
            h.useTransaction(t -> {
                t.execute("SET LOCAL enable_indexscan = off");
                t.execute("SET LOCAL enable_bitmapscan = off");
                for (int i = 0; i < 5; i++) {
                    t.select("SELECT count(*) FROM jobs").mapTo(Long.class).one();
                }
            });
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
        }

        assertThat(jobsScanned(shared)).isEqualTo(sharedBefore + 5);
        assertThat(jobsScanned(alone)).isEqualTo(aloneBefore);
    }

    private static long jobsScanned(PostgresExtension db) {
        try (Handle h = db.jdbi().open()) {
            h.select("SELECT pg_stat_force_next_flush()").mapTo(String.class).one();
            h.select("SELECT 1").mapTo(Integer.class).one();
            return h.select("SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'jobs'").mapTo(Long.class).one();
        }
    }
}
