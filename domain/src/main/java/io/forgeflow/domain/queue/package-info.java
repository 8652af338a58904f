/** Named queues: their cluster-wide limits, and which of them a worker takes. */
package io.forgeflow.domain.queue;
