/**
 * ForgeFlow inside an application's own JVM: {@link io.forgeflow.embedded.ForgeFlowWorker} claims runs of executor
 * {@code java} whose handler it has and runs them in-process, with every guarantee of a node's worker (leases and
 * heartbeats, fenced acknowledgements, retries and dead letters, timeouts, cancellation, drain on close), and, when
 * asked, the scheduler role. Depends on the application and persistence layers only: no HTTP server, no REST adapter.
 */
package io.forgeflow.embedded;
