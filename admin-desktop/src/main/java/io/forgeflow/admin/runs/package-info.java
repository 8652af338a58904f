/**
 * The Runs screen: run history across jobs or for one job, filtered by status and paged by cursor, and the run detail
 * pane with output, error and the attempt timeline.
 */
package io.forgeflow.admin.runs;
