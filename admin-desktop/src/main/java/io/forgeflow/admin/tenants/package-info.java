/**
 * Tenants' fair-share weights and cluster-wide limits (README "Tenants"): the list with each tenant's load, and an
 * edit form that sends only what changed ({@code PUT /api/tenants/{name}}, admin scope). Cluster-wide: a tenant-bound
 * token is told why it sees none.
 */
package io.forgeflow.admin.tenants;
