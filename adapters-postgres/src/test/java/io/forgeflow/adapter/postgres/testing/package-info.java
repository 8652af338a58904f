/**
 * The shared PostgreSQL test fixture, published in this module's test-jar: {@link
 * io.forgeflow.adapter.postgres.testing.PostgresExtension} (one fresh, migrated database per test JVM, truncated after
 * each test) and the seeding builders {@link io.forgeflow.adapter.postgres.testing.TestJobs} and {@link
 * io.forgeflow.adapter.postgres.testing.TestRuns}.
 */
package io.forgeflow.adapter.postgres.testing;
