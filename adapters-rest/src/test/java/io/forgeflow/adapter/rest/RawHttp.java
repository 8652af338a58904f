package io.forgeflow.adapter.rest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately dumb HTTP/1.1 client over a socket, for requests a well-behaved client will not send: raw paths
 * ({@code %00}, {@code ..%2f}, {@code %zz}), any method, any header, no content type, a chunked body. Each request
 * uses its own connection ({@code Connection: close}); the body is written on another thread, so an early answer
 * (413 before the body is sent) is read rather than lost in a broken pipe.
 */
final class RawHttp {
    private final int port;

    RawHttp(int port) {
        this.port = port;
    }

    /** A request as bytes on the wire. */
    record Request(String method, String path, Map<String, String> headers, byte[] body, boolean chunked) {
    }

    /** The answer: status, headers (lower-case names) and body text. */
    record Reply(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    Reply send(Request request) throws IOException, InterruptedException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(30_000);
            StringBuilder head = new StringBuilder();
            head.append(request.method()).append(' ').append(request.path()).append(" HTTP/1.1\r\n");
            if (request.headers().keySet().stream().noneMatch(k -> k.equalsIgnoreCase("Host"))) {
                head.append("Host: 127.0.0.1:").append(port).append("\r\n");
            }
            head.append("Connection: close\r\n");
            request.headers().forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            byte[] body = request.body();
            if (body != null) {
                head.append(request.chunked() ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + body.length + "\r\n");
            }
            head.append("\r\n");
            OutputStream out = socket.getOutputStream();
            Thread writer = new Thread(() -> {
                try {
                    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
                    if (body != null) {
                        writeBody(out, body, request.chunked());
                    }
                    out.flush();
                } catch (IOException e) {
                    // the server answered early and closed: the answer is what counts
                }
            }, "raw-http-writer");
            writer.setDaemon(true);
            writer.start();
            byte[] all = readAll(socket.getInputStream());
            writer.join(10_000);
            return parse(all);
        }
    }

    private static void writeBody(OutputStream out, byte[] body, boolean chunked) throws IOException {
        if (!chunked) {
            out.write(body);
            return;
        }
        int chunk = 64 * 1024;
        for (int off = 0; off < body.length; off += chunk) {
            int n = Math.min(chunk, body.length - off);
            out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body, off, n);
            out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                all.write(buffer, 0, n);
            }
        } catch (IOException e) {
            if (all.size() == 0) {
                throw e;
            }
            // a reset after the answer arrived (the server closed with unread body bytes): keep what we have
        }
        return all.toByteArray();
    }

    private static Reply parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IllegalStateException("no HTTP answer: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        byte[] rest = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            rest = dechunk(rest);
        } else if (headers.containsKey("content-length")) {
            rest = java.util.Arrays.copyOf(rest, Math.min(rest.length, Integer.parseInt(headers.get("content-length"))));
        }
        return new Reply(status, headers, new String(rest, StandardCharsets.UTF_8));
    }

    private static byte[] dechunk(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int pos = 0;
        while (pos < data.length) {
            int eol = indexOf(data, pos);
            if (eol < 0) {
                break;
            }
            String sizeLine = new String(data, pos, eol - pos, StandardCharsets.ISO_8859_1).split(";")[0].trim();
            int size = Integer.parseInt(sizeLine, 16);
            if (size == 0) {
                break;
            }
            out.write(data, eol + 2, size);
            pos = eol + 2 + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] data, int from) {
        for (int i = from; i + 1 < data.length; i++) {
            if (data[i] == '\r' && data[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
