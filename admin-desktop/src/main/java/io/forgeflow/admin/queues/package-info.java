/**
 * Queues (API.md "Queues"): each tenant's queues with their pause switch, cluster-wide limits and load; pause (after a
 * confirmation) and resume, and an edit form for max_running and the rate limit that sends only what changed
 * ({@code PUT /api/queues/{name}}, operate scope). Every call acts on the row's tenant's queue.
 */
package io.forgeflow.admin.queues;
