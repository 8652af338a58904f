package io.forgeflow.bench;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The REST load's HTTP/1.1 client: one kept-alive connection, a request written as prepared bytes, the response read
 * just far enough to know its status and skip its body. The load generator shares the machine's two cores with the
 * node and the database, so it has to cost little: the JDK's HttpClient spent about 3 ms of CPU per request here,
 * more than the node it measured.
 */
final class PlainHttpClient implements Closeable {
    private final String host;
    private final int port;
    private final int timeoutMillis;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    PlainHttpClient(String host, int port, int timeoutMillis) {
        this.host = host;
        this.port = port;
        this.timeoutMillis = timeoutMillis;
    }

    /** A POST of a JSON body, as bytes to send as they are. */
    static byte[] jsonPost(String host, int port, String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: " + body.length
                + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[h.length + body.length];
        System.arraycopy(h, 0, request, 0, h.length);
        System.arraycopy(body, 0, request, h.length, body.length);
        return request;
    }

    /** Sends the request and returns the response's status code (the body is read and dropped). */
    int send(byte[] request) throws IOException {
        if (socket == null) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            out = socket.getOutputStream();
        }
        try {
            out.write(request);
            out.flush();
            return readResponse();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private int readResponse() throws IOException {
        String status = line();
        if (!status.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean closes = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> closes = value.equalsIgnoreCase("close");
                default -> { }
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line().split(";")[0].trim(), 16); size > 0;
                 size = Long.parseLong(line().split(";")[0].trim(), 16)) {
                skip(size);
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
        } else if (length > 0) {
            skip(length);
        }
        if (closes) {
            close();
        }
        return code;
    }

    private String line() throws IOException {
        StringBuilder s = new StringBuilder(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed mid-response");
            }
            if (c != '\r') {
                s.append((char) c);
            }
        }
        return s.toString();
    }

    private void skip(long n) throws IOException {
        while (n > 0) {
            long skipped = in.skip(n);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new IOException("connection closed mid-body");
                }
                skipped = 1;
            }
            n -= skipped;
        }
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        socket = null;
        in = null;
        out = null;
    }
}
