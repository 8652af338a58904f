/**
 * The live run events of an api node: {@link io.forgeflow.application.event.RunEventFeed} numbers the cluster's run
 * changes, keeps the recent ones for replay, and feeds the open event streams.
 */
package io.forgeflow.application.event;
