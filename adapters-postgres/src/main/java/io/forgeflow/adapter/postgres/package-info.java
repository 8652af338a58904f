/**
 * The PostgreSQL adapter: ForgeFlow's only stateful dependency, behind the domain's ports.
 *
 * <ul>
 *   <li>Schema: Liquibase changelog {@code migrations.xml} (formatted SQL under {@code db/changelog/}), applied by
 *       {@link io.forgeflow.adapter.postgres.PostgresMigrations} at start or by Dropwizard's {@code db migrate}.</li>
 *   <li>The claim engine ({@link io.forgeflow.adapter.postgres.PostgresRunQueue}): {@code FOR UPDATE SKIP LOCKED}
 *       claims, fenced batch acknowledgements, one-statement heartbeats, lease recovery.</li>
 *   <li>Repositories for jobs, runs and nodes; leadership by a session-level advisory lock
 *       ({@link io.forgeflow.adapter.postgres.AdvisoryLockLeaderElection}); coalesced {@code LISTEN/NOTIFY} wake-ups
 *       ({@link io.forgeflow.adapter.postgres.PostgresWorkSignal}); readiness
 *       ({@link io.forgeflow.adapter.postgres.PostgresHealth}).</li>
 *   <li>Observability: the cluster's run changes over coalesced {@code LISTEN/NOTIFY}, published after the commit
 *       and never inside the claim engine's transactions ({@link io.forgeflow.adapter.postgres.PostgresRunEvents}),
 *       the queue's depth and lag for the metrics ({@link io.forgeflow.adapter.postgres.PostgresQueueStats}), and
 *       bounded, {@code SKIP LOCKED} retention deletes ({@link io.forgeflow.adapter.postgres.PostgresRetention}).</li>
 * </ul>
 *
 * <p>Every SQL statement lives in its own file next to its SqlObject ({@code RunSql/claim.sql}), starts with a
 * comment about its locking, and uses bound parameters only. Every time decision is made by the database clock:
 * statements say {@code coalesce(:now, now())}, where {@code :now} is null in production and a fixed instant in tests
 * (the adapters' nullable {@code testClock}). Adapters take a {@link org.jdbi.v3.core.Jdbi} made by
 * {@link io.forgeflow.adapter.postgres.PostgresJdbi#create}.
 */
package io.forgeflow.adapter.postgres;
