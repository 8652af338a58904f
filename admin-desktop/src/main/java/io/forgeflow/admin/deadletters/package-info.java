/** The dead-letter queue: runs that used up their attempts ({@code GET /api/runs?status=dead}), requeued one or many. */
package io.forgeflow.admin.deadletters;
