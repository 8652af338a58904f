/**
 * Honest in-memory fakes of the domain ports, for use-case and adapter tests: {@link
 * io.forgeflow.application.testkit.InMemoryStore} (jobs, runs, attempts and nodes behind the repository, queue and
 * registry ports), {@link io.forgeflow.application.testkit.MutableClock}, {@link
 * io.forgeflow.application.testkit.FakeLeaderElection}, {@link io.forgeflow.application.testkit.CountingWorkSignal}
 * and {@link io.forgeflow.application.testkit.FakeExecutor}. They follow the ports' Javadoc, are thread-safe, and
 * take "now" from the store's clock; they change a run's status only through {@link
 * io.forgeflow.application.testkit.RunTransitions}, which checks every move with {@code RunStatus}'s table (issue
 * 40). {@link io.forgeflow.application.testkit.RunQueueContract} is the behaviour every
 * {@code RunQueue} must show, extended by the fake's test here and meant for the Postgres adapter's IT as well.
 * {@link io.forgeflow.application.testkit.JobDrafts} builds job submissions from a named starting point, and {@link
 * io.forgeflow.application.testkit.Await} waits for another thread's work with a deadline instead of a sleep.
 */
package io.forgeflow.application.testkit;
