/**
 * Workflows (issue 32): a job's detail with its parents and children, and a batch's progress.
 */
package io.forgeflow.admin.workflows;
