/**
 * The REST adapter: the HTTP contract of shared/API.md on JAX-RS (Jersey, under Dropwizard). Resources
 * ({@link io.forgeflow.adapter.rest.JobResource}, {@link io.forgeflow.adapter.rest.RunResource},
 * {@link io.forgeflow.adapter.rest.StatsResource}, {@link io.forgeflow.adapter.rest.NodeResource},
 * {@link io.forgeflow.adapter.rest.HealthResource}) call the application's use cases and nothing else; snake_case
 * DTOs with RFC 3339 timestamps; exception mappers that give every failure the one error shape
 * {@code {"error": ..., "field": ...}} and never a stack trace; and servlet filters that run before Jersey reads a
 * body (JSON error pages, the 1 MiB body limit, JSON as the only content type), with a Jetty error handler
 * ({@link io.forgeflow.adapter.rest.JsonErrorHandler}) for what Jetty refuses before them. Request bodies are parsed here,
 * strictly, rather than bound by the server's {@code ObjectMapper}. {@link io.forgeflow.adapter.rest.RestModule}
 * lists what the server registers.
 */
package io.forgeflow.adapter.rest;
