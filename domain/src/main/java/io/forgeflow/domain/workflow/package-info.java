/**
 * Workflows: jobs that wait for parent jobs ({@link io.forgeflow.domain.workflow.Dependencies}), and batches of jobs
 * created together with a job that runs when all of them have ended ({@link io.forgeflow.domain.workflow.BatchPlan}).
 */
package io.forgeflow.domain.workflow;
