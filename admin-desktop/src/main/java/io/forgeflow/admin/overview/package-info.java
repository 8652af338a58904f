/**
 * The overview: run counts by status, live nodes and the scheduler leader, the runs that need attention, and a live
 * feed of run events (Server-Sent Events, or polling every 2 s when the server has no event stream).
 */
package io.forgeflow.admin.overview;
