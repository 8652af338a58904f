/** The tracing port (issue 31): spans of submissions, runs and attempts, implemented by an adapter (OpenTelemetry). */
package io.forgeflow.application.trace;
