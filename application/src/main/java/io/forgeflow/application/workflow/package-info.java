/** Workflows: batches, a job's parents and children, and the leader's workflow chores. */
package io.forgeflow.application.workflow;
