/**
 * Use cases (submit, control, claim/execute/acknowledge, heartbeat, recover, schedule tick, queries) and the
 * background loops that drive them, each with a {@code runOnce()} for tests. Depends on the domain, cron-utils and
 * slf4j only.
 */
package io.forgeflow.application;
