package io.forgeflow.adapter.executor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.execution.ExecutorSettings;
import io.forgeflow.domain.port.ConfigurableRunExecutor;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Makes one HTTP call: {@code {"url": "...", "method": "POST", "headers": {...}, "body": <any JSON>,
 * "expected_status": [200, 404]}}.
 *
 * <h2>Request</h2>
 * {@code method} is GET, POST (the default), PUT, PATCH, DELETE or HEAD. A JSON {@code body} is sent as
 * {@code application/json}; a string body is sent as-is as {@code text/plain; charset=utf-8}; a
 * {@code Content-Type} header, when given, wins in both cases. GET and HEAD take no body. A POST, PUT or PATCH
 * without a body sends an empty one. Unless the payload sets them, the request carries {@code User-Agent:
 * ForgeFlow}, {@code X-ForgeFlow-Run-Id}, {@code X-ForgeFlow-Job-Id} and {@code X-ForgeFlow-Attempt} (the
 * last three let a receiver spot a retried attempt). Redirects are followed for GET and HEAD only; a redirect to
 * another host or port, or from https to http, goes without any header the payload set ({@link RedirectHeaders}).
 *
 * <h2>Outcome</h2>
 * Success is a 2xx status, or, when {@code expected_status} is given, a status in that list (and nothing else).
 * The output is the status line ({@code HTTP 200 OK}, with the standard reason phrase whatever the server sent)
 * and the <em>head</em> of the body, read as a stream and decoded as UTF-8: reading stops after
 * {@code maxOutputBytes}, so a large response is never held in memory. A status that is not a success fails with
 * the status line as error. Whatever the status, a response header {@code X-ForgeFlow-Snooze-Seconds: n} snoozes the
 * run and {@code X-ForgeFlow-Give-Up: reason} gives up ({@link RunSignals}). The attempt's timeout bounds the whole call (DNS, connect, upload, wait, download):
 * when it passes the call is cancelled and the attempt TIMED_OUT. Cancellation cancels the call: CANCELLED.
 * Connection refused, unknown host, TLS errors and the optional connect/read timeouts fail the attempt with an
 * error naming the cause and the host.
 *
 * <h2>SSRF guard</h2>
 * With {@link ExecutorSettings#privateNetworkTargetsAllowed()} false (the server's default on a node that listens on
 * a non-loopback address; {@code FORGEFLOW_HTTP_ALLOW_PRIVATE} overrides it), no call reaches a loopback, private or
 * link-local address: a literal one is refused at submission (422 on {@code payload.url}), and at execution every
 * resolved address of every host, redirects included, is checked before connecting ({@link AddressGuard}). A
 * refused call fails the attempt with an error that says so. Without {@link #configure} the guard is off.
 *
 * <h2>Resources and secrets</h2>
 * All calls share one {@link OkHttpClient}, so connections are pooled; {@link #close()} releases them. Neither
 * headers nor bodies are logged, and errors name the host, never the full URL (its query may hold a token).
 * Thread-safe.
 */
public final class HttpRunExecutor implements ConfigurableRunExecutor {
    private static final Logger log = LoggerFactory.getLogger(HttpRunExecutor.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MediaType APPLICATION_JSON = MediaType.get("application/json");
    private static final MediaType TEXT_PLAIN = MediaType.get("text/plain; charset=utf-8");
    private static final Duration MAX_TIMEOUT = Duration.ofDays(365);

    private final Settings settings;
    private volatile Clients clients;

    /** Connect timeout 10 s; no separate read or write timeout (the attempt's timeout bounds the call). */
    public HttpRunExecutor() {
        this(Settings.defaults());
    }

    public HttpRunExecutor(Settings settings) {
        this(settings, null);
    }

    /** @param guard the SSRF guard, or null for none (tests pass their own notion of a refused address) */
    HttpRunExecutor(Settings settings, AddressGuard guard) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clients = Clients.build(settings, guard);
    }

    /** Turns the SSRF guard on when private network targets are not allowed; off otherwise. */
    @Override
    public void configure(ExecutorSettings executorSettings) {
        Clients previous = clients;
        clients = Clients.build(settings, executorSettings.privateNetworkTargetsAllowed() ? null : AddressGuard.standard());
        previous.close();
    }

    /** Whether the SSRF guard is on. */
    boolean guarded() {
        return clients.guard() != null;
    }

    /** The two clients (they share one connection pool and dispatcher) and the guard they apply, if any. */
    private record Clients(OkHttpClient followingRedirects, OkHttpClient notFollowingRedirects, AddressGuard guard) {
        static Clients build(Settings settings, AddressGuard guard) {
            OkHttpClient.Builder builder = new OkHttpClient.Builder()
                    .connectTimeout(settings.connectTimeout())
                    .readTimeout(settings.readTimeout())
                    .writeTimeout(settings.writeTimeout())
                    .followRedirects(true)
                    .followSslRedirects(true)
                    .addNetworkInterceptor(new RedirectHeaders());
            OkHttpClient following = (guard == null ? builder : guard.applyTo(builder)).build();
            // newBuilder() shares the connection pool and dispatcher
            OkHttpClient notFollowing = following.newBuilder()
                    .followRedirects(false)
                    .followSslRedirects(false)
                    .build();
            return new Clients(following, notFollowing, guard);
        }

        void close() {
            followingRedirects.dispatcher().executorService().shutdown();
            followingRedirects.connectionPool().evictAll();
        }
    }

    /**
     * Limits within a call; the attempt's timeout always bounds the whole call besides. Zero means none.
     *
     * @param connectTimeout the longest wait for a TCP (and TLS) connection; 10 s by default
     * @param readTimeout    the longest silence while waiting for or reading the response; none by default, as a
     *                       slow endpoint is what the job's timeout_seconds is for
     * @param writeTimeout   the longest stall while sending the request; none by default
     */
    public record Settings(Duration connectTimeout, Duration readTimeout, Duration writeTimeout) {
        public Settings {
            for (Duration duration : new Duration[] {connectTimeout, readTimeout, writeTimeout}) {
                if (duration == null || duration.isNegative()) {
                    throw new IllegalArgumentException("timeouts must be zero or positive, got " + duration);
                }
            }
        }

        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(10), Duration.ZERO, Duration.ZERO);
        }

        public Settings withReadTimeout(Duration timeout) {
            return new Settings(connectTimeout, timeout, writeTimeout);
        }

        public Settings withConnectTimeout(Duration timeout) {
            return new Settings(timeout, readTimeout, writeTimeout);
        }
    }

    @Override
    public String name() {
        return "http";
    }

    /**
     * Requires {@code url} (absolute http or https); checks {@code method}, {@code headers} (string values, valid
     * names and values), {@code body} (not with GET or HEAD) and {@code expected_status} (1 to 500 statuses from
     * 100 to 599). Other keys are rejected. With the SSRF guard on, a URL whose host is a literal loopback, private
     * or link-local address (or {@code localhost}) is refused.
     */
    @Override
    public void validate(Map<String, Object> payload) {
        HttpPayload parsed = HttpPayload.parse(payload);
        AddressGuard guard = clients.guard();
        if (guard != null) {
            guard.checkAtSubmission(parsed.url());
        }
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
        Clients clients = this.clients;
        HttpPayload payload;
        Request request;
        try {
            payload = HttpPayload.parse(context.payload());
            request = request(payload, context);
        } catch (ValidationException e) {
            return ExecutionResult.failedPermanently("", "invalid payload: " + e.getMessage());
        } catch (JsonProcessingException e) {
            return ExecutionResult.failedPermanently("", "invalid payload: payload.body cannot be written as JSON");
        }
        HttpUrl url = payload.url();
        if (context.timeout().isZero() || context.timeout().isNegative()) { // okio reads a zero timeout as none
            return ExecutionResult.timedOut("", "timed out after " + DurationText.seconds(context.timeout())
                    + "; HTTP call to " + hostPort(url) + " not started");
        }
        Call call = (payload.followsRedirects() ? clients.followingRedirects() : clients.notFollowingRedirects())
                .newCall(request);
        Duration timeout = context.timeout().compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : context.timeout();
        call.timeout().timeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
        context.cancellation().onCancel(call::cancel);
        try (Response response = call.execute()) {
            String statusLine = statusLine(response);
            String output = output(statusLine, response, payload.method(), context.maxOutputBytes());
            log.debug("run {} attempt {}: {} {} answered {}", context.runId(), context.attempt(), payload.method(),
                    url.redact(), response.code());
            ExecutionResult signal = RunSignals.fromHttpHeaders(response.header(RunSignals.SNOOZE_HEADER),
                    response.header(RunSignals.GIVE_UP_HEADER), output);
            if (signal != null) {
                return signal;
            }
            return payload.isSuccess(response.code())
                    ? ExecutionResult.succeeded(output)
                    : failedStatus(payload, response, output, statusLine);
        } catch (IOException e) {
            return failure(e, call, url, context);
        } catch (RuntimeException e) {
            log.error("run {} attempt {}: HTTP call to {} failed unexpectedly", context.runId(), context.attempt(),
                    url.redact(), e);
            return ExecutionResult.failed("", "internal error calling " + hostPort(url) + ": " + e);
        }
    }

    private static Request request(HttpPayload payload, ExecutionContext context) throws JsonProcessingException {
        Request.Builder request = new Request.Builder().url(payload.url()).headers(payload.headers())
                .tag(RedirectHeaders.JobHeaders.class,
                        new RedirectHeaders.JobHeaders(payload.url(), payload.headers().names()));
        setIfAbsent(request, payload, "User-Agent", "ForgeFlow");
        setIfAbsent(request, payload, "X-ForgeFlow-Run-Id", context.runId());
        setIfAbsent(request, payload, "X-ForgeFlow-Job-Id", context.jobId() == null ? "" : context.jobId());
        setIfAbsent(request, payload, "X-ForgeFlow-Attempt", Integer.toString(context.attempt()));
        if (context.traceparent() != null) {
            setIfAbsent(request, payload, "traceparent", context.traceparent()); // the receiver's spans join the trace
        }
        boolean ownContentType = payload.headers().get("Content-Type") != null;
        RequestBody body = null;
        if (payload.body() instanceof String) {
            // null media type: OkHttp then leaves the payload's own Content-Type header as it is
            body = RequestBody.create(((String) payload.body()).getBytes(StandardCharsets.UTF_8),
                    ownContentType ? null : TEXT_PLAIN);
        } else if (payload.body() != null) {
            body = RequestBody.create(JSON.writeValueAsBytes(payload.body()), ownContentType ? null : APPLICATION_JSON);
        } else if (Set.of("POST", "PUT", "PATCH").contains(payload.method())) {
            body = RequestBody.create(new byte[0], null);
        }
        return request.method(payload.method(), body).build();
    }

    private static void setIfAbsent(Request.Builder request, HttpPayload payload, String name, String value) {
        if (payload.headers().get(name) == null) {
            request.header(name, value);
        }
    }

    /** The status line, then the head of the body: at most maxBytes UTF-8 bytes in all. */
    private static String output(String statusLine, Response response, String method, int maxBytes)
            throws IOException {
        int budget = maxBytes - statusLine.getBytes(StandardCharsets.UTF_8).length - 1;
        ResponseBody body = response.body();
        if (method.equals("HEAD") || budget <= 0) {
            return statusLine;
        }
        BufferedSource source = body.source();
        Buffer head = new Buffer();
        long wanted = budget + 1L; // one byte more tells whether there is more
        while (head.size() < wanted && source.read(head, wanted - head.size()) != -1) {
            // keep reading: a read returns what one segment or packet held
        }
        if (head.size() == 0) {
            return statusLine;
        }
        boolean more = head.size() > budget;
        byte[] bytes = head.readByteArray();
        return statusLine + "\n" + TruncatedText.keepHead(bytes, bytes.length, more, body.contentLength(), budget);
    }

    /**
     * A status that is not a success: permanent unless listed in {@code payload.retry_on_status}; a retried 429 or 503
     * carries its {@code Retry-After}, which the retry policy caps.
     */
    private ExecutionResult failedStatus(HttpPayload payload, Response response, String output, String statusLine) {
        int code = response.code();
        if (!payload.retries(code)) {
            return ExecutionResult.failedPermanently(output, statusLine + " (permanent: not in payload."
                    + HttpPayload.RETRY_ON_STATUS + ")");
        }
        if (code == 429 || code == 503) {
            Optional<Duration> wait = RetryAfter.parse(response.header("Retry-After"), response.header("Date"),
                    Instant.now());
            if (wait.isPresent()) {
                return ExecutionResult.failedRetryAfter(output, statusLine + " (Retry-After: "
                        + wait.get().toSeconds() + "s)", wait.get());
            }
        }
        return ExecutionResult.failed(output, statusLine);
    }

    private static String statusLine(Response response) {
        String reason = ReasonPhrases.of(response.code(), response.message());
        return "HTTP " + response.code() + (reason.isEmpty() ? "" : " " + reason);
    }

    private ExecutionResult failure(IOException e, Call call, HttpUrl url, ExecutionContext context) {
        String where = hostPort(url);
        if (context.cancellation().isCancelled()) {
            return ExecutionResult.cancelled("", "cancelled (" + context.cancellation().reason() + "); HTTP call to "
                    + where + " aborted");
        }
        if (call.isCanceled()) { // only the call timeout cancels a call besides us
            return ExecutionResult.timedOut("", "timed out after " + DurationText.seconds(context.timeout())
                    + "; HTTP call to " + where + " aborted");
        }
        if (Thread.currentThread().isInterrupted()) {
            return ExecutionResult.cancelled("", "cancelled (worker interrupted); HTTP call to " + where + " aborted");
        }
        log.debug("run {} attempt {}: {} failed", context.runId(), context.attempt(), url.redact(), e);
        return ExecutionResult.failed("", describe(e, url, where));
    }

    private String describe(IOException e, HttpUrl url, String where) {
        String message = String.valueOf(e.getMessage());
        RefusedTargetException refused = refusal(e);
        if (refused != null) {
            return "refused by the SSRF guard: " + refused.host() + " is (or resolves to) a loopback, private or "
                    + "link-local address" + (sameHost(refused.host(), url.host()) ? "" : " (a redirect from "
                    + url.host() + ")") + "; set FORGEFLOW_HTTP_ALLOW_PRIVATE=true on the workers to allow private targets";
        }
        if (e instanceof UnknownHostException) {
            return "DNS lookup failed: unknown host " + url.host();
        }
        if (e instanceof SSLException) {
            return "TLS error with " + where + ": " + message;
        }
        if (e instanceof ConnectException) {
            return mentions(e, "refused") // OkHttp wraps the JDK's "Connection refused" in "Failed to connect to"
                    ? "connection refused by " + where
                    : "could not connect to " + where + ": " + message;
        }
        if (e instanceof SocketTimeoutException) {
            return mentions(e, "connect")
                    ? "connect timed out after " + DurationText.seconds(settings.connectTimeout()) + " to " + where
                    : "read timed out after " + DurationText.seconds(settings.readTimeout()) + " waiting for " + where;
        }
        if (e instanceof InterruptedIOException) {
            return "HTTP call to " + where + " interrupted: " + message;
        }
        return "HTTP call to " + where + " failed: " + e.getClass().getSimpleName() + ": " + message;
    }

    private static boolean sameHost(String a, String b) {
        java.net.InetAddress x = PrivateAddresses.literal(a);
        java.net.InetAddress y = PrivateAddresses.literal(b);
        return x != null && y != null ? x.equals(y) : a.equalsIgnoreCase(b);
    }

    /** The guard's refusal in the exception, its causes or what OkHttp suppressed (other routes), if any. */
    private static RefusedTargetException refusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RefusedTargetException) {
                return (RefusedTargetException) t;
            }
            for (Throwable s : t.getSuppressed()) {
                if (s instanceof RefusedTargetException) {
                    return (RefusedTargetException) s;
                }
            }
        }
        return null;
    }

    /** Whether the exception or one of its causes says {@code word}. */
    private static boolean mentions(Throwable e, String word) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT).contains(word)) {
                return true;
            }
        }
        return false;
    }

    private static String hostPort(HttpUrl url) {
        return (url.host().contains(":") ? "[" + url.host() + "]" : url.host()) + ":" + url.port();
    }

    /** Releases pooled connections and the dispatcher's threads. Idempotent. */
    @Override
    public void close() {
        clients.close();
    }
}
