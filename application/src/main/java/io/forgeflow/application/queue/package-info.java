/** Named queues: listing, cluster-wide limits, pause and resume. */
package io.forgeflow.application.queue;
