/**
 * Enqueueing ForgeFlow jobs from an application's own transaction, over plain JDBC: {@link
 * io.forgeflow.client.jdbc.ForgeFlowJdbc#enqueue(java.sql.Connection, io.forgeflow.client.jdbc.JobRequest)} calls the
 * database function {@code forgeflow.enqueue()} on the caller's connection, so the job commits or rolls back with the
 * caller's own writes. Depends on {@code java.sql} only.
 */
package io.forgeflow.client.jdbc;
