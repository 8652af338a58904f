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
 * Refuses request bodies over the limit (1 MiB) with 413 and a JSON error. A declared {@code Content-Length}
 * over the limit is refused before anything is parsed; a chunked body, or one longer than it declared, is counted
 * as it is read, and the read that passes the limit throws {@link BodyTooLargeException}, which the body readers
 * and {@link UnexpectedExceptionMapper} turn into 413.
 *
 * <p>A refused body of up to {@link #DRAIN_LIMIT} is read to its end and discarded before the connection is
 * reused: closing a connection with unread bytes makes the kernel send a reset, which can destroy the 413 before
 * the client reads it (most clients send the whole body before they read the answer). Larger bodies, and
 * requests that sent {@code Expect: 100-continue} (they have not sent the body), get the 413 on a closed
 * connection.
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
    /** The most of a refused body read and discarded so that the client sees the 413 (32 MiB: a batch's twice). */
    static final long DRAIN_LIMIT = 32L << 20;

    private final long limit;

    public BodyLimitFilter() {
        this(MAX_BODY_BYTES);
    }

    /** @param limit the largest body accepted, in bytes (at most {@link #MAX_BODY_BYTES}, which the readers also enforce) */
    public BodyLimitFilter(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1 byte, was " + limit);
        }
        this.limit = limit;
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
            if (declared > DRAIN_LIMIT || expectsContinue(http) || !drain(http.getInputStream(), declared)) {
                out.setHeader("Connection", "close");
            }
            ErrorBody.write(out, 413, ApiException.tooLarge(limit).getMessage(), null);
            return;
        }
        LimitedRequest limited = new LimitedRequest(http, limit);
        chain.doFilter(limited, response);
        if (limited.overflowed() && !drain(http.getInputStream(), DRAIN_LIMIT)) {
            out.setHeader("Connection", "close");
        }
    }

    /** The batch route's limit for it (when this filter's is the default), else this filter's. */
    private long limitFor(HttpServletRequest http) {
        String path = http.getRequestURI();
        return limit == MAX_BODY_BYTES && path != null && (path.equals(BATCHES_PATH) || path.equals(BATCHES_PATH + "/"))
                ? MAX_BATCH_BODY_BYTES : limit;
    }

    private static boolean expectsContinue(HttpServletRequest http) {
        String expect = http.getHeader("Expect");
        return expect != null && expect.toLowerCase(java.util.Locale.ROOT).contains("100-continue");
    }

    /** Reads and drops the rest of a body, at most {@code max} bytes; whether it reached the end. */
    private static boolean drain(ServletInputStream in, long max) {
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
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
        private ServletInputStream stream;
        private BufferedReader reader;

        LimitedRequest(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        /** Whether a read passed the limit. */
        boolean overflowed() {
            return stream != null && ((LimitedInputStream) stream).count > limit;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new LimitedInputStream(super.getInputStream(), limit);
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

    /** Counts bytes and throws {@link BodyTooLargeException} once more than the limit were read. */
    private static final class LimitedInputStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long count;

        LimitedInputStream(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
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

        private void add(int n) throws BodyTooLargeException {
            count += n;
            if (count > limit) {
                throw new BodyTooLargeException(limit);
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
