/**
 * The REST adapter: the HTTP contract of shared/API.md on JAX-RS (Jersey, under Dropwizard). Resources
 * ({@link io.forgeflow.adapter.rest.JobResource}, {@link io.forgeflow.adapter.rest.RunResource},
 * {@link io.forgeflow.adapter.rest.StatsResource}, {@link io.forgeflow.adapter.rest.NodeResource},
 * {@link io.forgeflow.adapter.rest.HealthResource}, and {@link io.forgeflow.adapter.rest.EventResource}, whose Server-Sent
 * Events {@link io.forgeflow.adapter.rest.EventStreams} writes from the application's run event feed without holding a
 * request thread) call the application's use cases and nothing else; snake_case
 * DTOs with RFC 3339 timestamps; exception mappers that give every failure the one error shape
 * {@code {"error": ..., "field": ...}} and never a stack trace; and servlet filters that run before Jersey reads a
 * body (JSON error pages, the 1 MiB body limit, JSON as the only content type), with a Jetty error handler
 * ({@link io.forgeflow.adapter.rest.JsonErrorHandler}) for what Jetty refuses before them. Request bodies are parsed here,
 * strictly, rather than bound by the server's {@code ObjectMapper}. Security: bearer tokens with scopes
 * ({@link io.forgeflow.adapter.rest.ApiTokens}, {@link io.forgeflow.adapter.rest.RouteScopes},
 * {@link io.forgeflow.adapter.rest.BearerTokenAuthFilter} on dropwizard-auth), an optional token for {@code /metrics},
 * and secret payload headers shown as {@code ***}. {@link io.forgeflow.adapter.rest.RestModule} lists what the server
 * registers.
 */
package io.forgeflow.adapter.rest;
