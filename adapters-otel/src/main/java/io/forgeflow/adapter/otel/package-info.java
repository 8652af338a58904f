/**
 * The Tracing port on the OpenTelemetry Java SDK (issue 31): spans of submissions, runs and attempts, exported over
 * OTLP (http/protobuf, or http/json) when {@code FORGEFLOW_OTLP_ENDPOINT} is set; nothing at all otherwise.
 */
package io.forgeflow.adapter.otel;
