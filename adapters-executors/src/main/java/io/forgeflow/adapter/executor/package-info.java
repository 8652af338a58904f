/**
 * The executors a worker runs attempts with, each a {@link io.forgeflow.domain.port.RunExecutor} registered for
 * {@link java.util.ServiceLoader} in {@code META-INF/services/io.forgeflow.domain.port.RunExecutor}:
 * <ul>
 *   <li>{@link io.forgeflow.adapter.executor.ShellRunExecutor} ({@code shell}): {@code /bin/sh -c} in its own
 *       session, whose whole process tree is killed on timeout or cancellation; the tail of the output is kept. Its
 *       environment is {@link io.forgeflow.adapter.executor.JobEnvironment}'s allow-list, never the worker's own.</li>
 *   <li>{@link io.forgeflow.adapter.executor.HttpRunExecutor} ({@code http}): one HTTP call on a shared OkHttp
 *       client; the status line and the head of the response body are kept. Configured by the server
 *       ({@link io.forgeflow.domain.port.ConfigurableRunExecutor}) with the SSRF guard
 *       ({@link io.forgeflow.adapter.executor.AddressGuard}): no loopback, private or link-local target; a redirect
 *       elsewhere carries none of the job's headers ({@link io.forgeflow.adapter.executor.RedirectHeaders}).</li>
 *   <li>{@link io.forgeflow.adapter.executor.NoopRunExecutor} ({@code noop}): succeeds at once or after
 *       {@code sleep_ms}, for benchmarks.</li>
 * </ul>
 * Every executor keeps at most {@code maxOutputBytes} of output in memory, cut on a UTF-8 character boundary and
 * marked {@code [... N bytes truncated ...]}, and reports failures as data, never as exceptions. Payload values
 * (commands, URLs, headers, bodies) are never logged: they may carry secrets.
 */
package io.forgeflow.adapter.executor;
