/** Keeping history bounded: the leader deletes finished runs and jobs older than the retention period. */
package io.forgeflow.application.retention;
