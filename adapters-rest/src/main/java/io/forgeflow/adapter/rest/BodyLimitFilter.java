package io.forgeflow.adapter.rest;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Refuses request bodies over the limit (1 MiB) with 413 and a JSON error, and ends bodies that arrive too slowly with
 * 408. A declared {@code Content-Length} over the route's limit is answered 413 at once, before anything of the body is
 * read, on a connection that is then closed: reading it first would let each client that declares a large body and
 * trickles it hold a thread (issue 39). A chunked body, or one longer than it declared, is counted as it is read, and
 * the read that passes the limit throws {@link BodyTooLargeException}, which the body readers and
 * {@link UnexpectedExceptionMapper} turn into 413.
 *
 * <p>Pace: from the node's first read of a body, a grace ({@link SlowClientLimits#grace()}) lets it arrive at any
 * pace; after that, a read that leaves the body unfinished with fewer than {@code minBytesPerSecond * (elapsed -
 * grace)} bytes read throws {@link BodyTooSlowException}: 408, connection closed. It is measured from the node's first
 * read, not from the request's arrival (Jetty's own minimum rate is), so a small body that a busy node reads late is
 * not refused: it is read whole at once.
 *
 * <p>Register it in front of Jersey (a servlet filter on {@code /*}, before {@link JsonContentTypeFilter}).
 */
public final class BodyLimitFilter implements Filter {
    /** The largest body accepted: 1 MiB. */
    public static final long MAX_BODY_BYTES = 1L << 20;
    /** The limit of {@code POST /api/batches} (up to 10,000 job bodies): 16 MiB. */
    public static final long MAX_BATCH_BODY_BYTES = 16L << 20;
    /** The path whose bodies may be as large as {@link #MAX_BATCH_BODY_BYTES}. */
    static final String BATCHES_PATH = "/api/batches";
    /** The most of an overflowed body (one that lied about its length) read and discarded to keep the connection. */
    static final long DRAIN_LIMIT = 64L << 10;

    private final long limit;
    private final long minBytesPerSecond;
    private final long graceNanos;

    public BodyLimitFilter() {
        this(MAX_BODY_BYTES, SlowClientLimits.DEFAULTS);
    }

    /** The default limits, with this pace for bodies. */
    public BodyLimitFilter(SlowClientLimits pace) {
        this(MAX_BODY_BYTES, pace);
    }

    /** @param limit the largest body accepted, in bytes (at most {@link #MAX_BODY_BYTES}, which the readers also enforce) */
    public BodyLimitFilter(long limit) {
        this(limit, SlowClientLimits.DEFAULTS);
    }

    BodyLimitFilter(long limit, SlowClientLimits pace) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1 byte, was " + limit);
        }
        this.limit = limit;
        this.minBytesPerSecond = pace.minBytesPerSecond();
        this.graceNanos = pace.grace().toNanos();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletRequest http = (HttpServletRequest) request;
        HttpServletResponse out = (HttpServletResponse) response;
        long declared = http.getContentLengthLong();
        long limit = limitFor(http);
        if (declared > limit) {
            out.setHeader("Connection", "close"); // unread: nothing of a refused body is waited for
            ErrorBody.write(out, 413, ApiException.tooLarge(limit).getMessage(), null);
            return;
        }
        LimitedRequest limited = new LimitedRequest(http, limit, declared, minBytesPerSecond, graceNanos);
        chain.doFilter(limited, response);
        if (limited.tooSlow() || (limited.overflowed() && !drain(http.getInputStream(), DRAIN_LIMIT))) {
            out.setHeader("Connection", "close");
        } else if (!closing(out) && !drain(limited.getInputStream(), limit)) {
            // a body the route did not read (one that takes none, or one refused first) is read to its end, at the
            // body's pace and within its limit: left unread, Jetty closes the connection under a client whose body
            // came after the head, and the client's next request on it fails
            out.setHeader("Connection", "close");
        }
    }

    private static boolean closing(HttpServletResponse out) {
        String connection = out.getHeader("Connection");
        return connection != null && connection.toLowerCase(java.util.Locale.ROOT).contains("close");
    }

    /** The batch route's limit for it (when this filter's is the default), else this filter's. */
    private long limitFor(HttpServletRequest http) {
        String path = http.getRequestURI();
        return limit == MAX_BODY_BYTES && path != null && (path.equals(BATCHES_PATH) || path.equals(BATCHES_PATH + "/"))
                ? MAX_BATCH_BODY_BYTES : limit;
    }

    /** Reads and drops the rest of a body, at most {@code max} bytes; whether it reached the end. */
    private static boolean drain(ServletInputStream in, long max) {
        try {
            if (in.isFinished() || in.read() < 0) {
                return true; // read whole already, or never sent: the common case, nothing allocated
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        byte[] buffer = new byte[8 * 1024];
        long total = 1;
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                total += n;
                if (total > max) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static String describe(long limit) {
        return limit == MAX_BODY_BYTES ? "1 MiB (1048576 bytes)" : limit + " bytes";
    }

    /** A request whose body stream counts what is read. */
    private static final class LimitedRequest extends HttpServletRequestWrapper {
        private final long limit;
        private final long declared;
        private final long minBytesPerSecond;
        private final long graceNanos;
        private LimitedInputStream stream;
        private BufferedReader reader;

        LimitedRequest(HttpServletRequest request, long limit, long declared, long minBytesPerSecond, long graceNanos) {
            super(request);
            this.limit = limit;
            this.declared = declared;
            this.minBytesPerSecond = minBytesPerSecond;
            this.graceNanos = graceNanos;
        }

        /** Whether a read passed the limit. */
        boolean overflowed() {
            return stream != null && stream.count > limit;
        }

        /** Whether the body arrived below the minimum rate. */
        boolean tooSlow() {
            return stream != null && stream.tooSlow;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new LimitedInputStream(super.getInputStream(), limit, declared, minBytesPerSecond, graceNanos);
            }
            return stream;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            if (reader == null) {
                Charset charset;
                try {
                    String name = getCharacterEncoding();
                    charset = name == null ? StandardCharsets.UTF_8 : Charset.forName(name);
                } catch (IllegalArgumentException e) {
                    charset = StandardCharsets.UTF_8;
                }
                reader = new BufferedReader(new InputStreamReader(getInputStream(), charset));
            }
            return reader;
        }
    }

    /**
     * Counts bytes and throws {@link BodyTooLargeException} once more than the limit were read, or
     * {@link BodyTooSlowException} once an unfinished body fell below the minimum rate after the grace.
     */
    private static final class LimitedInputStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private final long declared;
        private final long minBytesPerSecond;
        private final long graceNanos;
        private final long firstRead = System.nanoTime();
        private long count;
        private boolean tooSlow;

        LimitedInputStream(ServletInputStream in, long limit, long declared, long minBytesPerSecond, long graceNanos) {
            this.in = in;
            this.limit = limit;
            this.declared = declared;
            this.minBytesPerSecond = minBytesPerSecond;
            this.graceNanos = graceNanos;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                add(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                add(n);
            }
            return n;
        }

        private void add(int n) throws IOException {
            count += n;
            if (count > limit) {
                throw new BodyTooLargeException(limit);
            }
            if (minBytesPerSecond > 0 && (declared < 0 || count < declared)) {
                long paced = System.nanoTime() - firstRead - graceNanos;
                if (paced > 0 && count < minBytesPerSecond * (paced / 1_000_000L) / 1000L) {
                    tooSlow = true;
                    throw new BodyTooSlowException(minBytesPerSecond);
                }
            }
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
